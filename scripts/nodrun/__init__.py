"""`make run`: the whole system on one machine (see scripts/run.py)."""
