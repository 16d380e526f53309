"""What payments calls outside itself: the claims service."""
