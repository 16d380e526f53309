"""What a newcomer meets: `make run`'s own set-up (scripts/run.py: a fresh
var/, a database it creates, migrations, every service, the demo shop and
app, the demo person seeded), then a demo task through it: sign in with the
saved login and a one-time code, pay with the seeded card. Then a restart at
once (no duplicates), and `make clean` then `make run` (exactly one of each,
and each works)."""

import asyncio
import contextlib
import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from collections import Counter

import grpc
import httpx
import psycopg
import pytest

from nod.approvals.v1 import approvals_pb2 as approvals
from nod.approvals.v1 import approvals_pb2_grpc
from nod.claims.v1 import claims_pb2 as claims
from nod.claims.v1 import claims_pb2_grpc
from nod.tasks.v1 import tasks_pb2 as pb
from nod.tasks.v1 import tasks_pb2_grpc
from nodkit.client import open_channel
from nodtest.children import still_running
from nodtest.database import admin_url, libpq_url
from nodtest.demo_task import run_demo_task
from nodtest.make_run import MakeRun
from nodtest.rpc import expect_error

pytestmark = pytest.mark.slow

ROOT = pathlib.Path(__file__).resolve().parent.parent


@pytest.fixture
def make_run(tmp_path):
    run = MakeRun(ROOT, tmp_path / "var", f"nod_test_run_{uuid.uuid4().hex[:8]}")
    yield run
    run.stop()
    run.clean()


def shop_counts(shop_url: str) -> dict[str, int]:
    with urllib.request.urlopen(f"{shop_url}/_control/counts", timeout=5) as reply:
        return json.load(reply)["counts"]


async def the_demo_persons_things(run: MakeRun) -> tuple[list, list]:
    meta = run.meta()
    async with open_channel(run.addresses["claims"]) as channel:
        items = (
            await claims_pb2_grpc.VaultServiceStub(channel).ListItems(
                claims.ListItemsRequest(), metadata=meta, timeout=10
            )
        ).items
    async with open_channel(run.addresses["approvals"]) as channel:
        accounts = (
            await approvals_pb2_grpc.ApprovalsServiceStub(channel).ListAccounts(
                approvals.ListAccountsRequest(), metadata=meta, timeout=10
            )
        ).accounts
    return list(items), list(accounts)


def database_exists(name: str) -> bool:
    with psycopg.connect(libpq_url(admin_url()), autocommit=True) as conn:
        return (
            conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
            is not None
        )


def signs_in_to_the_web_ui(run: MakeRun) -> bool:
    """What make run printed: the URL to open and where the password is."""
    text = "".join(run.output)
    url = re.search(r"Open (http://\S+)/ and sign in as ada with the password in (\S+)", text)
    assert url is not None, text
    assert url.group(1) == run.gateway_url
    password_file = pathlib.Path(url.group(2))
    assert password_file.stat().st_mode & 0o777 == 0o600
    with httpx.Client(base_url=url.group(1), timeout=10) as client:
        form = client.get("/signin").text
        binding = re.search(r'name="binding" value="([^"]+)"', form).group(1)  # type: ignore[union-attr]
        password = password_file.read_text().strip()
        signed = client.post(
            "/signin", data={"binding": binding, "name": "ada", "password": password, "next": "/"}
        )
        return signed.status_code == 303 and client.get("/tasks").status_code == 200


def json_events(run: MakeRun) -> list[dict]:
    """make run's output on a pipe as a log collector reads it: every line
    of its processes one JSON object, nothing before it (make run's own
    lines to the person, `nod: ...` and the summary, are not a process's)."""
    events = []
    for line in run.output:
        if line.startswith("{"):
            events.append(json.loads(line))
        else:
            assert " | " not in line and '"event"' not in line, line
    return events


def json_start_lines(run: MakeRun) -> Counter[str]:
    """Each service's start lines in make run's output on a pipe."""
    started: Counter[str] = Counter()
    for event in json_events(run):
        if event["service"] in MakeRun.services():
            started[event["service"]] += event["event"] == "server.serving"
    return started


def console_start_lines(run: MakeRun) -> Counter[str]:
    """Each service's start lines in make run's output on a terminal, as a
    person reads them: `claims    | 12:00:01 [info     ] claims serving on ...`."""
    started: Counter[str] = Counter()
    for line in run.output:
        name, _, text = line.partition(" | ")
        name = name.strip()
        if name not in MakeRun.services():
            continue
        assert not text.startswith("{"), line  # no JSON at a person
        address = run.addresses[name]
        address = f"http://{address}" if name == "gateway" else address
        sentence = rf"\d\d:\d\d:\d\d \[info\s*\] {name} serving on {re.escape(address)}, version \d"
        started[name] += re.match(sentence, text) is not None
    return started


# Three starts (each allowed 150 s on a loaded machine) and two demo tasks.
@pytest.mark.timeout(900)
async def test_make_run_as_a_newcomer_meets_it(make_run):
    stand_ins = make_run.start()
    # On a pipe, JSON: one start line each, and no chatter from Alembic or uvicorn.
    assert json_start_lines(make_run) == dict.fromkeys(MakeRun.services(), 1)
    chatter = ("Context impl", "transactional DDL", "Uvicorn running", "server.listening")
    assert not [line for line in make_run.output if any(c in line for c in chatter)]
    assert signs_in_to_the_web_ui(make_run)
    task = await run_demo_task(make_run, "Buy the desk lamp at the demo shop")
    assert task.state == pb.TASK_STATE_DONE, task.message
    assert "paid" in task.message
    # The gateway's access lines are structured, by route template: the
    # sign-in above, and no task id or query string in any of them.
    requests = [e for e in json_events(make_run) if e["event"] == "http.request"]
    assert {"route": "/signin", "method": "POST", "status": 303} in [
        {key: e[key] for key in ("route", "method", "status")} for e in requests
    ]
    assert not [e for e in requests if task.id in json.dumps(e) or "?" in e["route"]]
    assert shop_counts(stand_ins["shop"]) == {"login": 1, "otp": 1, "checkout": 1}

    # Stopped and started again at once, by a person at a terminal: up,
    # readable lines with one start line each, and nothing seeded twice.
    make_run.stop()
    make_run.start(terminal=True)
    assert console_start_lines(make_run) == dict.fromkeys(MakeRun.services(), 1)
    items, accounts = await the_demo_persons_things(make_run)
    assert sorted(i.label for i in items) == ["Demo card", "Demo shop"]
    assert [a.label for a in accounts] == ["Demo app"]

    # make clean, then make run: the database it made is gone, and it starts afresh.
    make_run.stop()
    make_run.clean()
    assert not database_exists(make_run.database)
    assert not (make_run.var / "vault.key").exists()
    stand_ins = make_run.start()
    assert signs_in_to_the_web_ui(make_run)
    items, accounts = await the_demo_persons_things(make_run)
    assert sorted(i.label for i in items) == ["Demo card", "Demo shop"]
    assert [a.settings["url"] for a in accounts] == [f"{stand_ins['app']}/hooks/nod"]
    again = await run_demo_task(make_run, "Sign in to the demo shop")
    assert again.state == pb.TASK_STATE_DONE, again.message
    assert shop_counts(stand_ins["shop"])["login"] == 1


@pytest.mark.timeout(600)
async def test_make_run_with_every_hop_over_mutual_tls(tmp_path):
    """NOD_RUN_TLS=1: every service and the gateway serve and call with
    their own certificates, so the web UI, the seeding, a purchase (tasks,
    browser, claims, payments) and the person's own calls all go over
    mutual TLS; a plaintext caller gets nowhere."""
    run = MakeRun(ROOT, tmp_path / "var", f"nod_test_run_{uuid.uuid4().hex[:8]}", NOD_RUN_TLS="1")
    try:
        stand_ins = run.start()
        assert "every gRPC hop is mutual TLS" in run.log_text()
        assert run.log_text().count('"tls": "mutual"') == 5  # each gRPC service's server
        assert signs_in_to_the_web_ui(run)
        task = await run_demo_task(run, "Buy the desk lamp at the demo shop")
        assert task.state == pb.TASK_STATE_DONE, task.message
        assert shop_counts(stand_ins["shop"]) == {"login": 1, "otp": 1, "checkout": 1}
        # The services know ada by the id the gateway gave her, which make
        # run's grpcurl example names.
        ada = run.person_id("ada")
        assert ada and ada != "ada" and f"-H 'x-nod-user: {ada}'" in run.log_text()
        # scripts/nodcall.py with the gateway's certificate and no token at all.
        tls_files = run.var / "tls"
        listed = await asyncio.to_thread(
            subprocess.run,
            [sys.executable, str(ROOT / "scripts/nodcall.py"), run.addresses["claims"],
             "nod.claims.v1.VaultService/ListItems", "{}", "--user", ada],
            env={
                "PATH": "/usr/bin:/bin",
                "NOD_TLS_CERT_FILE": str(tls_files / "gateway.pem"),
                "NOD_TLS_KEY_FILE": str(tls_files / "gateway-key.pem"),
                "NOD_TLS_CA_FILE": str(tls_files / "ca.pem"),
            },
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert listed.returncode == 0, listed.stderr
        assert "Demo card" in listed.stdout
        # grpcurl as make run prints it, with the gateway's certificate.
        tasks = await asyncio.to_thread(
            subprocess.run,
            [str(ROOT / ".venv/bin/grpcurl"), "-cacert", "tls/ca.pem", "-cert", "tls/gateway.pem",
             "-key", "tls/gateway-key.pem", "-authority", "tasks", "-H", f"x-nod-user: {ada}",
             "-d", "{}", run.addresses["tasks"], "nod.tasks.v1.TasksService/ListTasks"],
            capture_output=True, text=True, timeout=60, cwd=run.var,
        )  # fmt: skip
        assert tasks.returncode == 0, tasks.stderr
        assert task.id in tasks.stdout
        # nodctl beside it, as the summary says: the operator's certificate
        # from var/tls, its token from var/ (no NOD_ token in its environment).
        operator_env = {
            key: value
            for key, value in run.env.items()
            if key.startswith("NOD_") and key not in ("NOD_SERVICE_TOKEN", "NOD_SERVICE_TOKENS")
        } | {"NOD_DATABASE_URL": run.database_url(), "NOD_RUN_TLS": "1", "PATH": "/usr/bin:/bin"}
        assert "NOD_RUN_TLS=1 .venv/bin/nodctl health" in run.log_text()
        for command in (["health"], ["uncertain"]):
            done = await asyncio.to_thread(
                subprocess.run,
                [str(ROOT / ".venv/bin/nodctl"), *command],
                env=operator_env, cwd=run.var.parent, capture_output=True, text=True, timeout=120,
            )  # fmt: skip
            assert done.returncode == 0, (command, done.stdout, done.stderr)
        async with open_channel(run.addresses["tasks"]) as plaintext:
            await expect_error(
                tasks_pb2_grpc.TasksServiceStub(plaintext).ListTasks(
                    pb.ListTasksRequest(), metadata=run.meta(), timeout=5
                ),
                grpc.StatusCode.UNAVAILABLE,
            )
    finally:
        run.stop()
        run.clean()


def test_make_run_stops_every_service_on_sigterm_with_nobody_reading(tmp_path):
    """A test or benchmark that ran make run and died: its output pipe has
    no reader, and the supervisor gets SIGTERM. Every service stops."""
    run = MakeRun(ROOT, tmp_path / "var", f"nod_test_run_{uuid.uuid4().hex[:8]}")
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "scripts/run.py")],
        env=run.env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    output: list[str] = []

    def read_until_up() -> None:
        for line in process.stdout:  # type: ignore[union-attr]
            output.append(line)
            if "nod is up" in line:
                return

    reader = threading.Thread(target=read_until_up, daemon=True)
    reader.start()
    reader.join(timeout=150)
    pids = [int(pid) for pid in re.findall(r"started \(pid=(\d+)\)", "".join(output))]
    try:
        assert not reader.is_alive(), "make run did not come up:\n" + "".join(output[-40:])
        assert len(pids) == 8, output  # six services, the demo shop and app
        process.stdout.close()  # type: ignore[union-attr]  # nobody reads it any more
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
        deadline = time.monotonic() + 30
        while still_running(pids) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert still_running(pids) == []
    finally:
        for group in pids:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(group, signal.SIGKILL)
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
        run.clean()
