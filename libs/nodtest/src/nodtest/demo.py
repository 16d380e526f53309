"""Fixtures for the demo shop and demo app (filled in with them)."""
