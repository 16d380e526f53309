"""nod's approvals service."""
