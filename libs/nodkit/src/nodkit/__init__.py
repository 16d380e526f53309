"""Shared plumbing for nod's services. Business rules never live here."""
