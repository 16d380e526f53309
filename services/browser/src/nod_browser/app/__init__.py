"""The use cases: a session's actions and reads, and the private entry with
its claim, each on one live session."""
