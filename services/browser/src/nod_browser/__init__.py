"""nod's browser service."""
