"""The use cases: each checks its input with the domain rules, runs one
transaction (or one hot-path statement) and raises typed errors."""
