"""The use cases: the API's calls (app/tasks.py, app/stop.py), the agent
loop (app/runs.py) with its tools (app/tools/), the queue (app/worker.py) and
the waits on the person (app/waits.py)."""
