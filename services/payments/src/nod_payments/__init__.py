"""nod's payments service."""
