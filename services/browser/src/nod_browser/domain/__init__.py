"""The rules, in plain Python: no gRPC, no browser."""
