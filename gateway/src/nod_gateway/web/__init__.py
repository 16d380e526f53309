"""The HTTP side: security (sessions, CSRF, headers), rendering, errors."""
