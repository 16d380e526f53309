"""One service crashing under `make run` no longer stops the rest: make run
says so in one line and starts it again, and nothing it had running is
replayed (DESIGN.md G12). Killed mid-purchase while the person is asked
for their yes, the tasks service comes back, the task still waits for
that yes, and the purchase then goes through once: the shop saw one
sign-in, one code and one checkout. A service that keeps crashing ends
make run, non-zero, with a line saying why (scripts/nodrun/supervisor.py).
And a private PostgreSQL make run started is stopped with it."""

import asyncio
import contextlib
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid

import pytest

from nod.tasks.v1 import tasks_pb2 as pb
from nod.tasks.v1 import tasks_pb2_grpc
from nodkit.client import wait_until_serving
from nodtest.children import still_running
from nodtest.demo_task import drive_demo_task
from nodtest.make_run import MakeRun

from .test_make_run import ROOT, shop_counts, signs_in_to_the_web_ui

pytestmark = pytest.mark.slow


@pytest.fixture
def make_run(tmp_path):
    run = MakeRun(ROOT, tmp_path / "var", f"nod_test_run_{uuid.uuid4().hex[:8]}")
    yield run
    run.stop()
    run.clean()


def said(output: list[str]) -> list[str]:
    """The supervisor's own lines in make run's output on a pipe."""
    events = (json.loads(line) for line in output if line.startswith("{"))
    return [event["event"] for event in events if event["service"] == "system"]


def pids(output: list[str], name: str) -> list[int]:
    """Each pid `name` ran under, in order (make run says each start)."""
    found = (re.fullmatch(rf"{name} started \(pid=(\d+)\)", text) for text in said(output))
    return [int(match.group(1)) for match in found if match]


async def until_said(run: MakeRun, sentence: str, timeout_s: float = 60) -> str:
    deadline = asyncio.get_running_loop().time() + timeout_s
    while asyncio.get_running_loop().time() < deadline:
        for text in said(run.output):
            if re.search(sentence, text):
                return text
        await asyncio.sleep(0.2)
    raise AssertionError(f"make run never said {sentence!r}:\n" + "\n".join(said(run.output)))


@pytest.mark.timeout(600)
async def test_the_tasks_service_killed_mid_purchase_comes_back_and_nothing_runs_twice(
    make_run,
):
    stand_ins = make_run.start()
    tasks = tasks_pb2_grpc.TasksServiceStub(make_run.channel("tasks"))
    started = await tasks.StartTask(
        pb.StartTaskRequest(text="Buy the desk lamp at the demo shop"), metadata=make_run.meta()
    )
    # Signed in with the saved login and a one-time code; the card is shown
    # for the person's yes.
    task = await drive_demo_task(make_run, started.task.id, until_wait=pb.WAIT_KIND_PAYMENT)
    assert task.state == pb.TASK_STATE_WAITING, task
    assert shop_counts(stand_ins["shop"]) == {"login": 1, "otp": 1, "checkout": 0}

    [pid] = pids(make_run.output, "tasks")
    os.kill(pid, signal.SIGKILL)
    line = await until_said(make_run, r"^tasks exited")
    assert line == (
        "tasks exited (signal 9, SIGKILL); restarting it in 1 s, restart 1 of 5 allowed within 60 s"
    )
    await until_said(make_run, rf"^tasks started \(pid=(?!{pid}\))")
    await wait_until_serving(make_run.addresses["tasks"], timeout_s=60)
    # Nothing else was stopped or started again, and the web UI worked throughout.
    assert [len(pids(make_run.output, name)) for name in MakeRun.services()] == [1, 1, 1, 1, 2, 1]
    assert await asyncio.to_thread(signs_in_to_the_web_ui, make_run)

    # The task still waits for the same yes: nothing it did was done again.
    again = (await tasks.GetTask(pb.GetTaskRequest(task_id=task.id), metadata=make_run.meta())).task
    assert (again.state, again.wait.id) == (pb.TASK_STATE_WAITING, task.wait.id), again
    assert shop_counts(stand_ins["shop"]) == {"login": 1, "otp": 1, "checkout": 0}
    done = await drive_demo_task(make_run, task.id)
    assert done.state == pb.TASK_STATE_DONE, done.message
    assert "paid" in done.message
    assert shop_counts(stand_ins["shop"]) == {"login": 1, "otp": 1, "checkout": 1}


@pytest.mark.timeout(600)
async def test_the_browser_killed_mid_purchase_comes_back_and_the_task_asks_to_check(make_run):
    """The page the card was to go on went with the browser: after the yes
    nothing is typed again anywhere, and the task asks the person to check
    rather than starting over."""
    stand_ins = make_run.start()
    tasks = tasks_pb2_grpc.TasksServiceStub(make_run.channel("tasks"))
    started = await tasks.StartTask(
        pb.StartTaskRequest(text="Buy the desk lamp at the demo shop"), metadata=make_run.meta()
    )
    task = await drive_demo_task(make_run, started.task.id, until_wait=pb.WAIT_KIND_PAYMENT)
    assert task.state == pb.TASK_STATE_WAITING, task

    [pid] = pids(make_run.output, "browser")
    os.kill(pid, signal.SIGKILL)
    await until_said(make_run, r"^browser exited \(signal 9, SIGKILL\); restarting it in 1 s")
    await until_said(make_run, rf"^browser started \(pid=(?!{pid}\))")
    await wait_until_serving(make_run.addresses["browser"], timeout_s=60)
    assert still_running([pid]) == []  # nothing it started outlived it

    checking = await drive_demo_task(make_run, task.id, until_wait=pb.WAIT_KIND_CHECK)
    assert checking.state == pb.TASK_STATE_WAITING, checking
    assert shop_counts(stand_ins["shop"]) == {"login": 1, "otp": 1, "checkout": 0}
    assert [len(pids(make_run.output, name)) for name in MakeRun.services()] == [1, 1, 1, 2, 1, 1]


def test_a_service_that_keeps_crashing_ends_make_run_saying_why(tmp_path):
    """The browser finds no Chromium at start (exit 1, a missing dependency
    that might come back): restarted once (NOD_RUN_RESTART_LIMIT=1), then
    make run stops everything and exits non-zero."""
    run = MakeRun(
        ROOT,
        tmp_path / "var",
        f"nod_test_run_{uuid.uuid4().hex[:8]}",
        NOD_BROWSER_CHROMIUM=str(tmp_path / "no-chromium"),
        NOD_RUN_RESTART_LIMIT="1",
    )
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "scripts/run.py")],
        env=run.env,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    output: list[str] = []
    reader = threading.Thread(target=lambda: output.extend(process.stdout), daemon=True)  # type: ignore[arg-type]
    reader.start()
    try:
        returncode = process.wait(timeout=240)
        reader.join(timeout=10)
        lines = said(output)
        assert returncode == 1, "".join(output[-40:])
        assert (
            "browser exited (rc=1); restarting it in 1 s, restart 1 of 1 allowed within 60 s"
            in (lines)
        )
        assert lines.count("browser exited (rc=1) and is not restarted: it was restarted once"
                           " within 60 s already. Stopping everything.") == 1  # fmt: skip
        # The browser's own line, each time it started: what to fix.
        assert "".join(output).count("NOD_BROWSER_CHROMIUM names no program") == 2
        assert len(pids(output, "browser")) == 2
        every = [pid for name in [*MakeRun.services(), "shop", "app"] for pid in pids(output, name)]
        assert still_running(every) == []
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
        for pid in re.findall(r"started \(pid=(\d+)\)", "".join(output)):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(int(pid), signal.SIGKILL)
        run.clean()


def test_a_private_postgresql_is_stopped_with_make_run():
    """NOD_RUN_PRIVATE_POSTGRES: make run starts a cluster under var/pg
    (as it does where no server answers on 127.0.0.1:5432); Ctrl-C stops it
    too, and make run says so."""
    # Not under pytest's folders: they are its user's alone, and the cluster
    # runs as the postgres user when the tests run as root.
    folder = pathlib.Path(tempfile.mkdtemp(prefix="nod-private-pg-"))
    folder.chmod(0o755)
    run = MakeRun(ROOT, folder / "var", "nod", NOD_RUN_PRIVATE_POSTGRES="1")
    try:
        run.start()
        assert f"nod: PostgreSQL from a private cluster under {run.var / 'pg'}" in run.log_text()
        assert (run.var / "pg/data/postmaster.pid").exists()
        run.stop()
        stopped = f"nod: stopped the private PostgreSQL under {run.var / 'pg'}"
        deadline = time.monotonic() + 10  # the last lines, read after the exit
        while stopped not in run.log_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert stopped in run.log_text(), run.log_text()[-2000:]
        assert not (run.var / "pg/data/postmaster.pid").exists()
    finally:
        run.stop()
        clean = [sys.executable, str(ROOT / "scripts/nodrun/clean.py"), str(run.var)]
        subprocess.run(clean, check=True, capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)
