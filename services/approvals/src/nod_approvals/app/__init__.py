"""The use cases: each checks its input with the domain rules, runs one
transaction and raises typed errors; the executor runs an approved action once."""
