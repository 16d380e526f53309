"""Every process's CPU, sampled, and charged to the make-test worker whose
environment it carries (nodtest.cpu_account's report reads it).

A worker's reaped children show only when reaped, and a process its parent
lost (a Chromium whose service was killed) is reaped by init and never
shows. The environment survives both: whatever a test worker starts, and
whatever that starts, carries PYTEST_XDIST_WORKER. Each sample writes, per
worker, the CPU seconds its processes used since the last sample; and the
same for the machine's PostgreSQL and for everything else.

    python -m nodtest.cpu_sampler var/cpu-samples.jsonl &   # beside make test
"""

import json
import os
import sys
import time

from nodtest.proc import TICKS_PER_S, cpu_ticks, stat_fields

_OWNER = b"PYTEST_XDIST_WORKER="


def owner_of(pid: str, parent_owner: str | None) -> str:
    """The worker in the process's environment; else its parent's (Chromium
    starts its helpers with an environment of its own); else postgres or
    other. A worker itself sets the variable after it starts, so its own
    environment lacks it: it is `pid:<pid>`, which the report maps by the
    pid each worker writes."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as environ:
            for item in environ.read().split(b"\0"):
                if item.startswith(_OWNER):
                    return item[len(_OWNER) :].decode()
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            if b"exec(eval(sys.stdin.readline()))" in cmdline.read():  # an execnet worker
                return f"pid:{pid}"
        if parent_owner not in (None, "postgres", "other"):
            return parent_owner
        with open(f"/proc/{pid}/comm") as comm:
            return "postgres" if comm.read().strip() == "postgres" else "other"
    except OSError:
        return "other"


def sample_forever(path: str, every_s: float) -> None:
    seen: dict[str, tuple[str, int]] = {}  # pid: (owner, ticks)
    while True:
        used: dict[str, int] = {}
        alive: dict[str, tuple[str, int]] = {}
        # In pid order, parents mostly before their children.
        for pid in sorted((p for p in os.listdir("/proc") if p.isdigit()), key=int):
            if pid == str(os.getpid()) or (fields := stat_fields(pid)) is None:
                continue
            parent, ticks = fields[1], cpu_ticks(fields)
            owner, before = seen.get(pid, (None, 0))
            if owner is None:
                known = alive.get(parent) or seen.get(parent)
                owner = owner_of(pid, known[0] if known else None)
            alive[pid] = (owner, ticks)
            used[owner] = used.get(owner, 0) + ticks - before
        seen = alive
        with open(path, "a") as log:
            shares = {owner: ticks / TICKS_PER_S for owner, ticks in used.items()}
            log.write(json.dumps({"wall": time.time(), "used": shares}) + "\n")
        time.sleep(every_s)


if __name__ == "__main__":
    sample_forever(sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 1.0)
