"""Fixtures and builders for the approvals service (filled in with the service)."""
