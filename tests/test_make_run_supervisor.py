"""make run's supervisor (scripts/nodrun/supervisor.py) on small processes
of the test's own, in a second or two each: a process that ends by itself
is started again after a back-off that doubles, each restart said in one
line; past the limit, or on a wrong setting, everything stops with a
non-zero exit; a signal during a back-off stops everything and starts
nothing. The rule itself (scripts/nodrun/restarts.py) on a clock of the
test's own. tests/test_make_run_restart.py does it to the whole system."""

import contextlib
import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import time

import pytest

from nodtest.children import still_running, tied_to_me
from scripts.nodrun.restarts import GiveUp, Limits, Restart, RestartPolicy, how_it_ended

ROOT = pathlib.Path(__file__).resolve().parent.parent
PY = sys.executable

# The supervisor as make run builds it, on the processes named in argv[4]
# (JSON: name -> argv), with the limit and first delay in argv[2] and argv[3].
DRIVER = """
import json, os, sys
sys.path.insert(0, sys.argv[1])
from nodrun.output import OutputWhileRead
from nodrun.restarts import Limits
from nodrun.supervisor import supervisor
limits = Limits(limit=int(sys.argv[2]), window_s=60, first_delay_s=float(sys.argv[3]))
manager = supervisor(output=OutputWhileRead(sys.stdout), json_lines=True, limits=limits)
for name, argv in json.loads(sys.argv[4]).items():
    manager.add(name, argv, dict(os.environ))
manager.loop()
sys.exit(manager.returncode)
"""


def python(code: str) -> list[str]:
    return [PY, "-c", code]


STEADY = python("import time; print('steady up', flush=True); time.sleep(120)")


def exits(code: int, after_s: float = 0.2) -> list[str]:
    return python(f"import time; print('up', flush=True); time.sleep({after_s}); exit({code})")


class Supervised:
    """The driver above, its output read line by line as JSON."""

    def __init__(self, processes: dict[str, list[str]], *, limit: int, first_delay_s: float):
        argv = [str(ROOT / "scripts"), str(limit), str(first_delay_s), json.dumps(processes)]
        self.process = subprocess.Popen(
            tied_to_me([PY, "-c", DRIVER, *argv]),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self.events: list[dict] = []

    def until(self, sentence: str, timeout_s: float = 30) -> dict:
        """Reads until an event whose text matches `sentence` (a regex)."""
        deadline = time.monotonic() + timeout_s
        for event in self.events:
            if re.search(sentence, event["event"]):
                return event
        assert self.process.stdout is not None
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                break
            event = json.loads(line)  # every line one JSON object, nothing before it
            self.events.append(event)
            if re.search(sentence, event["event"]):
                return event
        raise AssertionError(f"no {sentence!r} in {[e['event'] for e in self.events]}")

    def finish(self, timeout_s: float = 30) -> int:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.events.append(json.loads(line))
        return self.process.wait(timeout=timeout_s)

    def said(self) -> list[str]:
        return [e["event"] for e in self.events if e["service"] == "system"]

    def pids(self, name: str) -> list[int]:
        found = [re.fullmatch(rf"{name} started \(pid=(\d+)\)", text) for text in self.said()]
        return [int(match.group(1)) for match in found if match]

    def close(self) -> None:
        groups = [int(p) for p in re.findall(r"started \(pid=(\d+)\)", " ".join(self.said()))]
        for group in [*groups, self.process.pid]:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(group, signal.SIGKILL)
        self.process.wait(timeout=10)


@pytest.fixture
def supervised():
    started: list[Supervised] = []

    def start(processes: dict[str, list[str]], *, limit: int = 2, first_delay_s: float = 0.2):
        started.append(Supervised(processes, limit=limit, first_delay_s=first_delay_s))
        return started[-1]

    yield start
    for one in started:
        one.close()


def test_a_crashing_process_is_restarted_with_a_growing_back_off_then_everything_stops(
    supervised,
):
    run = supervised({"crash": exits(3), "steady": STEADY}, limit=2, first_delay_s=0.2)
    first = run.until(r"^crash exited")
    assert first["event"] == (
        "crash exited (rc=3); restarting it in 0.2 s, restart 1 of 2 allowed within 60 s"
    )
    assert (first["level"], first["process"], first["returncode"]) == ("warning", "crash", 3)
    started = time.monotonic()
    second = run.until(r"restart 2 of 2")
    assert second["event"].startswith("crash exited (rc=3); restarting it in 0.4 s")
    last = run.until(r"is not restarted")
    assert last["event"] == (
        "crash exited (rc=3) and is not restarted: it was restarted 2 times within 60 s"
        " already. Stopping everything."
    )
    assert last["level"] == "error"
    # The second wait was longer than the first (0.4 s, then the process's own 0.2 s).
    assert time.monotonic() - started >= 0.5
    assert run.finish() == 3  # make run ends as the process it gave up on
    assert len(run.pids("crash")) == 3
    assert "steady stopped (rc=-15)" in run.said()
    assert still_running(run.pids("crash") + run.pids("steady")) == []


def test_a_process_killed_by_a_signal_is_restarted_under_its_own_pid(supervised):
    run = supervised({"steady": STEADY, "other": STEADY}, first_delay_s=0.2)
    run.until(r"^steady started")
    run.until(r"^other started")
    [pid] = run.pids("steady")
    # exec: the pid make run says is the process itself, not a shell around it.
    assert pathlib.Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[:2] == [
        PY.encode(),
        b"-c",
    ]
    os.kill(pid, signal.SIGKILL)
    said = run.until(r"^steady exited")
    assert said["event"] == (
        "steady exited (signal 9, SIGKILL); restarting it in 0.2 s,"
        " restart 1 of 2 allowed within 60 s"
    )
    run.until(rf"^steady started \(pid=(?!{pid}\))")
    run.process.send_signal(signal.SIGTERM)
    assert run.finish() == 128 + signal.SIGTERM
    # The other process ran on through the restart, and was stopped only now.
    assert len(run.pids("other")) == 1
    assert not [text for text in run.said() if text.startswith("other exited")]


def test_a_wrong_setting_is_not_restarted(supervised):
    run = supervised({"misset": exits(2, after_s=0), "steady": STEADY})
    said = run.until(r"^misset exited")
    assert said["event"] == (
        "misset exited (rc=2) and is not restarted: a setting is wrong, and starting it again"
        " would not change that. Stopping everything."
    )
    assert run.finish() == 2
    assert len(run.pids("misset")) == 1


def test_a_signal_during_a_back_off_stops_everything_and_starts_nothing(supervised):
    run = supervised({"crash": exits(1), "steady": STEADY}, first_delay_s=30)
    run.until(r"restarting it in 30 s")
    stopped_at = time.monotonic()
    run.process.send_signal(signal.SIGINT)
    assert run.finish() == 128 + signal.SIGINT
    assert time.monotonic() - stopped_at < 10
    assert len(run.pids("crash")) == 1
    assert "steady stopped (rc=-15)" in run.said()


def test_restarts_off_stops_everything_at_the_first_end(supervised):
    run = supervised({"crash": exits(1), "steady": STEADY}, limit=0)
    said = run.until(r"^crash exited")
    assert said["event"] == (
        "crash exited (rc=1) and is not restarted: restarts are off"
        " (NOD_RUN_RESTART_LIMIT=0). Stopping everything."
    )
    assert run.finish() == 1


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_back_off_doubles_and_the_limit_counts_restarts_within_the_window():
    clock = Clock()
    policy = RestartPolicy(Limits(limit=5, window_s=60), clock=clock)
    decided = []
    for _ in range(5):
        decided.append(policy.after_end("tasks", -9))
        clock.now += 5
    assert decided == [Restart(delay_s=d, number=n) for n, d in enumerate([1, 2, 4, 8, 16], 1)]
    assert isinstance(policy.after_end("tasks", -9), GiveUp)
    # Another process has a count of its own.
    assert policy.after_end("browser", 1) == Restart(delay_s=1, number=1)
    # A minute after the first restart, it no longer counts: one more is allowed.
    clock.now = 1000.0 + 60
    assert policy.after_end("tasks", -9) == Restart(delay_s=16, number=5)
    # Long quiet: back to the first delay.
    clock.now += 120
    assert policy.after_end("tasks", 0) == Restart(delay_s=1, number=1)


def test_the_back_off_stops_doubling_at_its_longest():
    clock = Clock()
    policy = RestartPolicy(Limits(limit=10, window_s=600), clock=clock)
    delays = [policy.after_end("tasks", 1).delay_s for _ in range(8)]  # type: ignore[union-attr]
    assert delays == [1, 2, 4, 8, 16, 30, 30, 30]


def test_the_limits_come_from_the_environment_or_are_refused():
    assert Limits.from_env({}) == Limits(limit=5, window_s=60)
    given = {"NOD_RUN_RESTART_LIMIT": "2", "NOD_RUN_RESTART_WINDOW_S": "10"}
    assert Limits.from_env(given) == Limits(limit=2, window_s=10)
    for wrong in ({"NOD_RUN_RESTART_LIMIT": "many"}, {"NOD_RUN_RESTART_WINDOW_S": "0"}):
        with pytest.raises(SystemExit, match="NOD_RUN_RESTART_"):
            Limits.from_env(wrong)


def test_how_a_process_ended_reads():
    assert how_it_ended(1) == "rc=1"
    assert how_it_ended(-9) == "signal 9, SIGKILL"
    assert how_it_ended(-15) == "signal 15, SIGTERM"
