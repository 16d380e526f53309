"""Every process's CPU, sampled, and charged to the make-test worker whose
environment it carries (nodtest.cpu_account's report reads it).

A worker's reaped children show only when reaped, and a process its parent
lost (a Chromium whose service was killed) is reaped by init and never
shows. The environment survives both: whatever a test worker starts, and
whatever that starts, carries PYTEST_XDIST_WORKER. Each sample writes, per
worker, the CPU seconds its processes used since the last sample; and the
same for the machine's PostgreSQL and for everything else. It writes them
by kind of process too (a service, Chromium, a script...), with how many of
each kind were born since: what a process start costs, and how many there are.

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


def kind_of(pid: str) -> str:
    """What a process is: `python -m <module>` by its module, a Python
    script by its file's name, a test worker, or its command's name
    (chromium, postgres, ...)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            argv = cmdline.read().decode(errors="replace").split("\0")
        with open(f"/proc/{pid}/comm") as comm:
            name = comm.read().strip()
    except OSError:
        return "gone"
    if "python" not in os.path.basename(argv[0]):
        return name.split("-")[0] if name.startswith("chrom") else name
    rest = argv[1:]
    if "-c" in rest or "exec(eval(sys.stdin.readline()))" in rest:
        return "python: a test worker or -c"
    if "-m" in rest and rest.index("-m") + 1 < len(rest):
        return f"python -m {rest[rest.index('-m') + 1]}"
    scripts = [arg for arg in rest if arg.endswith(".py") or "/bin/" in arg]
    return f"python {os.path.basename(scripts[0])}" if scripts else "python"


def sample_forever(path: str, every_s: float) -> None:
    seen: dict[str, tuple[str, int, str]] = {}  # pid: (owner, ticks, kind)
    while True:
        used: dict[str, int] = {}
        by_kind: dict[str, int] = {}
        born: dict[str, int] = {}
        born_to: dict[str, dict[str, int]] = {}  # owner: kind: count
        alive: dict[str, tuple[str, int, str]] = {}
        # In pid order, parents mostly before their children.
        for pid in sorted((p for p in os.listdir("/proc") if p.isdigit()), key=int):
            if pid == str(os.getpid()) or (fields := stat_fields(pid)) is None:
                continue
            parent, ticks = fields[1], cpu_ticks(fields)
            owner, before, kind = seen.get(pid, (None, 0, ""))
            if owner is None:
                known = alive.get(parent) or seen.get(parent)
                owner = owner_of(pid, known[0] if known else None)
                kind = kind_of(pid)
                born[kind] = born.get(kind, 0) + 1
                mine = born_to.setdefault(owner, {})
                mine[kind] = mine.get(kind, 0) + 1
            alive[pid] = (owner, ticks, kind)
            used[owner] = used.get(owner, 0) + ticks - before
            by_kind[kind] = by_kind.get(kind, 0) + ticks - before
        seen = alive
        with open(path, "a") as log:
            record = {
                "wall": time.time(),
                "used": {owner: ticks / TICKS_PER_S for owner, ticks in used.items()},
                "kinds": {kind: ticks / TICKS_PER_S for kind, ticks in by_kind.items()},
                "born": born,
                "born_to": born_to,
            }
            log.write(json.dumps(record) + "\n")
        time.sleep(every_s)


if __name__ == "__main__":
    sample_forever(sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 1.0)
