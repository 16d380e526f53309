"""The rules, in plain Python: no gRPC, no SQL, no HTTP."""
