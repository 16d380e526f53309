"""The use cases: input checked, one transaction, typed errors."""
