"""Fixtures and builders for the payments service (filled in with the service)."""
