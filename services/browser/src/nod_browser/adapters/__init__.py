"""What the runner calls outside itself: Chromium (through Playwright) and
the claims service."""
