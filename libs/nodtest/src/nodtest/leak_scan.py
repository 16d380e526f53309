"""The session's last check (G1): no private value the tests typed shows
anywhere nod let someone see it. Loaded by nodtest.fixtures, so every
session (and every pytest-xdist worker's) ends with the scan: after its
other session fixtures are torn down (services stopped, logs complete, the
database's rows read), each canary is looked for in every observation.
A sighting fails the session with a report that never shows the value."""

import collections
import time

import pytest

from nodtest import replies
from nodtest.canaries import session_canaries
from nodtest.leaks import find_leaks, report
from nodtest.observed import database_seconds, session_observations

# The report lists this many sightings; the rest are counted.
MAX_REPORTED = 40

replies.install()

_last_scan: dict[str, float] = {}
_last_sources: collections.Counter[str] = collections.Counter()
# Under pytest-xdist, each worker's figures, as it sent them when it ended.
_worker_scans: list[dict] = []


def _source(where: str) -> str:
    """ "gRPC reply: /nod.x/Y" -> "gRPC reply": the kind of place."""
    return where.split(":", 1)[0]


@pytest.fixture(scope="session", autouse=True)
def _no_private_value_seen(log_tee, pytestconfig):
    """Autouse and set up first, so torn down last. log_tee keeps the log
    lines of every service running in the test process."""
    yield
    started = time.perf_counter()
    observations = list(session_observations())
    canaries = list(session_canaries())
    leaks = find_leaks(canaries, observations)
    _last_scan.update(
        canaries=len(canaries),
        observations=len(observations),
        chars=sum(len(o.text) for o in observations),
        seconds=time.perf_counter() - started,
        database_seconds=database_seconds[0],
    )
    _last_sources.update(collections.Counter(_source(o.where) for o in observations))
    workeroutput = getattr(pytestconfig, "workeroutput", None)
    if workeroutput is not None:  # a pytest-xdist worker: its controller prints it
        workeroutput["leak_scan"] = {**_last_scan, "sources": dict(_last_sources)}
    if leaks:
        shown = report(leaks[:MAX_REPORTED])
        more = len(leaks) - MAX_REPORTED
        pytest.fail(shown + (f"\n… and {more} more" if more > 0 else ""), pytrace=False)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    scan = getattr(node, "workeroutput", {}).get("leak_scan")
    if scan:
        _worker_scans.append({"worker": node.gateway.id, **scan})


def _summary_lines(scan: dict, sources: dict[str, int], who: str = "") -> list[str]:
    kinds = sorted(sources.items(), key=lambda kv: -kv[1])
    return [
        f"private values{who}: {scan['canaries']:.0f} canaries looked for in"
        f" {scan['observations']:.0f} observations ({scan['chars']:.0f} characters) in"
        f" {scan['seconds']:.2f} s, after {scan['database_seconds']:.2f} s reading the"
        " databases' rows",
        "  observed: " + ", ".join(f"{n} {kind}" for kind, n in kinds),
    ]


def pytest_terminal_summary(terminalreporter) -> None:
    lines = _summary_lines(_last_scan, _last_sources) if _last_scan else []
    for scan in sorted(_worker_scans, key=lambda scan: scan["worker"]):
        lines += _summary_lines(scan, scan["sources"], f" ({scan['worker']})")
    for line in lines:
        terminalreporter.write_line(line)
