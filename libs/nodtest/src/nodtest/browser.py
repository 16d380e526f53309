"""Fixtures and builders for the browser service (filled in with the service)."""
