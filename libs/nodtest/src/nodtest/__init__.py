"""Test support for nod. Real dependencies only: a real PostgreSQL database,
real gRPC servers on port 0, real service processes."""
