"""Payments' rules, records and enums in plain Python (no gRPC, no SQL)."""
