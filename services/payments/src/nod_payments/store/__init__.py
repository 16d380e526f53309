"""The tables and the SQL: payments, their transitions, the limits."""
