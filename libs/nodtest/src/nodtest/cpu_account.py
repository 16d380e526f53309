"""Where make test spends its CPU, by test module: an opt-in pytest plugin
and its report.

make test is bound by the machine's two cores, not by waiting, so the way
to a shorter run is less CPU, and the first question is whose. Wall time
can't say: three workers share the cores, and a module that waits looks as
long as one that burns. The plugin writes when each worker starts and ends
each test; nodtest.cpu_sampler, run beside, charges every process's CPU to
the worker whose environment it carries (whatever a test starts, and
whatever that starts). The report puts the two together: a module's CPU is
what its worker's processes used while the worker ran it (its teardown
included, up to the next module's first test). The machine's PostgreSQL is
nobody's child: it is shown apart, as is everything else ("other").

    python -m nodtest.cpu_sampler var/cpu-samples.jsonl &
    NOD_TEST_CPU_LOG=$PWD/var/cpu.jsonl \\
      make test PYTEST_ARGS="-n 3 --dist loadscope -p nodtest.cpu_account"
    python -m nodtest.cpu_account var/cpu.jsonl var/cpu-samples.jsonl
"""

import bisect
import collections
import json
import os
import sys
import time

import pytest

_TICKS_PER_S = os.sysconf("SC_CLK_TCK")


def _machine_cpu_s() -> float:
    """The machine's busy CPU seconds since boot (all cores; idle and
    iowait left out)."""
    with open("/proc/stat") as stat:
        fields = [int(v) for v in stat.readline().split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / _TICKS_PER_S


def _write(at: str, test: str) -> None:
    path = os.environ.get("NOD_TEST_CPU_LOG")
    if not path:
        return
    record = {
        "at": at,
        "test": test,
        "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"),
        "pid": os.getpid(),
        "wall": time.time(),
        "machine": _machine_cpu_s(),
    }
    with open(path, "a") as log:
        log.write(json.dumps(record) + "\n")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_logstart(nodeid: str, location) -> None:
    _write("start", nodeid)


@pytest.hookimpl(trylast=True)
def pytest_runtest_logfinish(nodeid: str, location) -> None:
    _write("end", nodeid)


class Timeline:
    """Which module each worker was running when, from the plugin's records."""

    def __init__(self, records: list[dict]) -> None:
        self._windows: dict[str, list[tuple[float, str]]] = collections.defaultdict(list)
        self._worker_of_pid: dict[str, str] = {}
        for record in sorted(records, key=lambda r: r["wall"]):
            module = record["test"].split("::")[0]
            self._windows[record["worker"]].append((record["wall"], module))
            self._worker_of_pid[f"pid:{record['pid']}"] = record["worker"]
        self._starts = {w: [began for began, _ in mine] for w, mine in self._windows.items()}

    def charge_to(self, owner: str, wall: float) -> str:
        """The module `owner`'s worker was in at `wall`; an owner that is no
        worker (postgres, other) is its own."""
        worker = self._worker_of_pid.get(owner, owner)
        if worker not in self._windows:
            return owner
        at = bisect.bisect_right(self._starts[worker], wall)
        return self._windows[worker][at - 1][1] if at else "(before its first test)"


def module_cpu(records: list[dict], samples: list[dict]) -> dict[str, float]:
    """CPU seconds by module (and postgres, other) from the plugin's records
    and the sampler's samples."""
    timeline = Timeline(records)
    charged: dict[str, float] = collections.defaultdict(float)
    for sample in samples[1:]:  # the first holds every process's life so far
        for owner, used in sample["used"].items():
            charged[timeline.charge_to(owner, sample["wall"])] += used
    return charged


def module_births(records: list[dict], samples: list[dict]) -> dict[str, collections.Counter]:
    """Processes born by module, by kind: who starts the services, the
    Chromium renderers and the Playwright drivers."""
    timeline = Timeline(records)
    births: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for sample in samples[1:]:
        for owner, kinds in sample.get("born_to", {}).items():
            births[timeline.charge_to(owner, sample["wall"])].update(kinds)
    return births


def main(records_path: str, samples_path: str, top: int = 40) -> None:
    with open(records_path) as log:
        records = [json.loads(line) for line in log]
    with open(samples_path) as log:
        samples = [json.loads(line) for line in log]
    charged = module_cpu(records, samples)
    wall = max(r["wall"] for r in records) - min(r["wall"] for r in records)
    machine = max(r["machine"] for r in records) - min(r["machine"] for r in records)
    print(
        f"run: {wall:.0f} s; the machine busy {machine:.0f} CPU-s ({machine / wall:.2f} cores);"
        f" sampled {sum(charged.values()):.0f} CPU-s"
    )
    for owner, used in sorted(charged.items(), key=lambda kv: -kv[1])[:top]:
        print(f"{used:7.0f}  {owner}")
    kinds, born = kind_cpu(samples)
    print("\nby kind of process: CPU-s, processes born, CPU-s each")
    for kind, used in sorted(kinds.items(), key=lambda kv: -kv[1])[:top]:
        count = born.get(kind, 0)
        each = f"{used / count:7.2f}" if count else "       "
        print(f"{used:7.0f} {count:6d} {each}  {kind}")
    births = module_births(records, samples)
    print("\nservice processes started, by module (and Chromium's processes, drivers)")
    started = {module: _services(kinds) for module, kinds in births.items()}
    for module, count in sorted(started.items(), key=lambda kv: -kv[1])[:top]:
        born = births[module]
        others = f"chromium {born['chromium']:4d}  node {born['node-MainThread']:3d}"
        print(f"{count:5d}  {others}  {module}")


def _services(kinds: collections.Counter) -> int:
    return sum(n for kind, n in kinds.items() if kind.startswith(("python -m nod_", "python nod-")))


def kind_cpu(samples: list[dict]) -> tuple[dict[str, float], dict[str, int]]:
    """CPU seconds and processes born, by kind of process (the sampler's)."""
    used: dict[str, float] = collections.defaultdict(float)
    born: dict[str, int] = collections.defaultdict(int)
    for sample in samples[1:]:
        for kind, seconds in sample.get("kinds", {}).items():
            used[kind] += seconds
        for kind, count in sample.get("born", {}).items():
            born[kind] += count
    return used, born


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
