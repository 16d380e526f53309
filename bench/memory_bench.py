"""`make bench`: each nod process's resident memory (VmRSS, from /proc),
idle and under load, for sizing a pod's memory request and limit.

Every service and the gateway runs as its own process (as deployed), logging
to files under var/bench: claims, approvals, payments, the browser runner
and the tasks service (the scripted planner) as the soak starts them
(soak.system.System, one replica each, with the demo shop and demo app in
this process), and the gateway beside them on the same database. Each figure is one process with its
children; the browser runner's is given twice: the Python process alone,
and with its children (Playwright's driver and every Chromium process), also
as the sum of their Pss (shared pages counted once, as the pod's memory
counts them; the sum of VmRSS counts each shared page once per process).

  idle:       every process, BENCH_MEMORY_SETTLE_S (5) after all of them
              report SERVING, before any load;
  storms:     BENCH_MEMORY_CALLERS (64) callers for BENCH_MEMORY_SECONDS (20)
              against one service at a time, made as the soak makes them
              (soak.operations): claims Claim + MarkSubmitted (with the
              holder's RenewHolder), approvals Propose + Decide (the action
              sent to the demo app), payments CreatePayment;
  browser:    10 sessions opened at once, each navigated to a page of the
              demo shop, held open BENCH_MEMORY_SETTLE_S, then closed;
  tasks:      50 tasks started and run to their end, then listed 50 times;
  gateway:    a signed-in person's task list page (GET /tasks, those 50
              tasks) from 8 callers for 10 s.

Each loaded figure is sampled every 0.5 s while the load runs: its peak and
its last sample (the load's end). Memory is not timing noise, so one run
says it; prints a table and one JSON line of the figures.
"""

import asyncio
import itertools
import json
import os
import pathlib
import secrets
import sys
import threading
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from aiohttp import ClientSession

from nod.browser.v1 import browser_pb2, browser_pb2_grpc
from nod.tasks.v1 import tasks_pb2, tasks_pb2_grpc
from nod_gateway.__main__ import add_person
from nod_gateway.settings import GatewaySettings
from nodkit.client import open_channel, wait_until_answering
from nodtest.browser import browser_open
from nodtest.processes import ServiceProcess, free_port, migrate_once

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
from gateway_bench import signed_in  # noqa: E402
from load import Figures, run_load  # noqa: E402

from nodtest.proc import MIB, family, proc_kib, tree_pss_mib  # noqa: E402
from soak.operations import Operations, Outcome, Person  # noqa: E402
from soak.system import System  # noqa: E402

CALLERS = int(os.environ.get("BENCH_MEMORY_CALLERS", "64"))
SECONDS = float(os.environ.get("BENCH_MEMORY_SECONDS", "20"))
SETTLE_S = float(os.environ.get("BENCH_MEMORY_SETTLE_S", "5"))
SAMPLE_S = 0.5
SESSIONS = 10
SHOP_PAGES = ("/", "/login", "/product", "/checkout")
TASKS = 50
GATEWAY_CALLERS = 8
GATEWAY_SECONDS = 10.0
LOGS = ROOT / "var" / "bench"


@dataclass
class Watched:
    """One row of the table: how its memory is read, and what was read."""

    name: str
    read: Callable[[], float]  # MiB
    idle: float = 0.0
    peak: float = 0.0
    last: float = 0.0
    load: str = ""
    extra: dict[str, float] = field(default_factory=dict)


@dataclass
class Front:
    """The tasks service and the gateway, and the person signed in there."""

    tasks_address: str
    gateway_url: str
    person: str
    password: str
    gateway_pid: int


def pid_of(system: System, name: str) -> int:
    """The pid of the service's one replica, as the soak's System started it."""
    (peer,) = system.peers[name]
    assert peer.process.process is not None
    return peer.process.process.pid


def rss_of(pid: int, *, children: bool = True) -> Callable[[], float]:
    pids = (lambda: family(pid)) if children else (lambda: [pid])
    return lambda: sum(proc_kib(p, "status", "VmRSS") for p in pids()) / MIB


def pss_of(pid: int) -> Callable[[], float]:
    return lambda: tree_pss_mib(pid)


class Sampler:
    """Reads each of `reads` every SAMPLE_S on a thread of its own (the
    event loop is busy with the load), keeping each one's peak and last."""

    def __init__(self, reads: list[Callable[[], float]]) -> None:
        self.reads = reads
        self.peaks = [0.0] * len(reads)
        self.lasts = [0.0] * len(reads)
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self) -> None:
        for i, read in enumerate(self.reads):
            value = read()
            self.peaks[i] = max(self.peaks[i], value)
            self.lasts[i] = value
        self.samples += 1

    def _run(self) -> None:
        while True:
            self._sample()
            if self._stop.wait(SAMPLE_S):
                return

    def __enter__(self) -> "Sampler":
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()  # the load's end


def load_text(what: str, figures: Figures) -> str:
    errors = f", errors {figures.errors}" if figures.errors else ""
    return (
        f"{what}: {figures.calls_per_s:.0f}/s, p50 {figures.p50_ms:.0f} ms,"
        f" p99 {figures.p99_ms:.0f} ms{errors}"
    )


async def storm(row: Watched, what: str, call: Callable[[], Awaitable[None]]) -> None:
    with Sampler([row.read]) as sampler:
        figures = await run_load(call, CALLERS, SECONDS)
    row.peak, row.last = sampler.peaks[0], sampler.lasts[0]
    row.load = load_text(f"{what}, {CALLERS} callers, {SECONDS:.0f} s", figures)


def succeeded(operation: Callable[[Person], Awaitable[Outcome]], people: list[Person]):
    """A call for run_load: the operation for the next person, an error
    (counted) unless it went through."""
    turns = itertools.cycle(people)

    async def call() -> None:
        outcome = await operation(next(turns))
        if outcome is not Outcome.OK:
            raise RuntimeError(f"outcome {outcome}")

    return call


def create_payment(operations: Operations):
    """CreatePayment alone, as soak.operations' payment makes it: each one a
    task of its own (one order per task)."""

    async def create(person: Person) -> Outcome:
        request = operations.create_payment_request(person, f"bench-pay-{uuid.uuid4().hex[:8]}")
        await operations.payments.CreatePayment(request, metadata=person.meta, timeout=20)
        return Outcome.OK

    return create


async def browser_sessions(system: System, python: Watched, whole: Watched) -> None:
    """SESSIONS sessions opened at once, each on a page of the demo shop,
    held SETTLE_S; then closed, and the memory SETTLE_S after."""
    stub = browser_pb2_grpc.BrowserServiceStub(open_channel(system.address("browser")))
    meta = system.meta("bench-browser")
    pid = pid_of(system, "browser")
    pss = pss_of(pid)
    shop = system.shop.url  # type: ignore[attr-defined]
    with Sampler([python.read, whole.read, pss]) as sampler:
        began = time.perf_counter()
        opened = await asyncio.gather(
            *(
                browser_open(stub, meta, f"{shop}{SHOP_PAGES[i % len(SHOP_PAGES)]}", f"bench-{i}")
                for i in range(SESSIONS)
            )
        )
        took = time.perf_counter() - began
        await asyncio.sleep(SETTLE_S)
    python.peak, whole.peak, whole.extra["pss_peak"] = sampler.peaks
    python.last, whole.last, whole.extra["pss_last"] = sampler.lasts
    whole.extra["processes_open"] = len(family(pid))
    for session_id, _page in opened:
        request = browser_pb2.CloseSessionRequest(session_id=session_id)
        await stub.CloseSession(request, metadata=meta, timeout=10)
    await asyncio.sleep(SETTLE_S)
    whole.extra["closed"] = whole.read()
    whole.extra["pss_closed"] = pss()
    python.extra["closed"] = python.read()
    python.load = whole.load = f"{SESSIONS} sessions on the demo shop (opened in {took:.1f} s)"


async def tasks_and_pages(system: System, front: Front, tasks_row: Watched, gateway: Watched):
    """TASKS tasks started and run to their end, then listed; then the
    person's task list page through the gateway."""
    meta = system.meta(front.person)
    tasks = tasks_pb2_grpc.TasksServiceStub(open_channel(front.tasks_address))
    with Sampler([tasks_row.read]) as sampler:
        for i in range(TASKS):
            asked = tasks_pb2.StartTaskRequest(text=f"Listed task {i}", request_id=f"memory-{i}")
            await tasks.StartTask(asked, metadata=meta, timeout=20)
        # They end quickly: the scripted planner knows only the demo tasks.
        for state in (tasks_pb2.TASK_STATE_QUEUED, tasks_pb2.TASK_STATE_RUNNING):
            while True:
                asked_state = tasks_pb2.ListTasksRequest(state=state, page_size=1)
                if not (await tasks.ListTasks(asked_state, metadata=meta, timeout=20)).tasks:
                    break
                await asyncio.sleep(0.5)
        for _ in range(TASKS):
            listed = tasks_pb2.ListTasksRequest(page_size=50)
            await tasks.ListTasks(listed, metadata=meta, timeout=20)
    tasks_row.peak, tasks_row.last = sampler.peaks[0], sampler.lasts[0]
    tasks_row.load = f"{TASKS} tasks started and run to their end, then listed {TASKS} times"

    http: ClientSession = await signed_in(front.gateway_url, front.person, front.password)
    try:

        async def page() -> None:
            async with http.get("/tasks", allow_redirects=False) as reply:
                await reply.read()
                if reply.status != 200:
                    raise RuntimeError(f"GET /tasks: {reply.status}")

        with Sampler([gateway.read]) as sampler:
            figures = await run_load(page, GATEWAY_CALLERS, GATEWAY_SECONDS)
        gateway.peak, gateway.last = sampler.peaks[0], sampler.lasts[0]
        what = f"GET /tasks ({TASKS} tasks), {GATEWAY_CALLERS} callers, {GATEWAY_SECONDS:.0f} s"
        gateway.load = load_text(what, figures)
    finally:
        await http.close()


async def start_gateway(system: System, started: list[ServiceProcess]) -> Front:
    """The gateway, on the soak system's database, calling its services
    (the tasks service's scripted planner among them), and a person who may
    sign in to it."""
    env = {
        "NOD_DATABASE_URL": system.database_url,
        "NOD_SERVICE_TOKEN": system.token.get_secret_value(),
        **{f"NOD_{name.upper()}_ADDR": system.address(name) for name in system.peers},
    }
    await migrate_once("nod_gateway", env)
    name, password = "bench-memory", secrets.token_urlsafe(15)
    settings = GatewaySettings(database_url=system.database_url, service_token=system.token)
    await add_person(settings, name, password)
    address = f"127.0.0.1:{free_port()}"
    own = {**env, "NOD_GATEWAY_LISTEN": address, "NOD_INSTANCE_ID": "gateway-bench"}
    gateway = ServiceProcess("nod_gateway", own, LOGS / "memory-gateway.log")
    started.append(gateway)
    gateway.start()
    url = f"http://{address}"
    await asyncio.to_thread(wait_until_answering, f"{url}/healthz", 60)
    assert gateway.process is not None
    return Front(system.address("tasks"), url, name, password, gateway.process.pid)


def print_figures(rows: list[Watched]) -> None:
    print(f"  {'process':<20} {'idle':>7} {'peak':>7} {'last':>7}   load (MiB)")
    for row in rows:
        print(f"  {row.name:<20} {row.idle:7.1f} {row.peak:7.1f} {row.last:7.1f}   {row.load}")
    by_name = {row.name: row for row in rows}
    whole, python = by_name["browser + Chromium"], by_name["browser, Python"]
    extra = whole.extra
    print(
        f"  browser + Chromium, Pss summed (shared pages once): idle {extra['pss_idle']:.1f},"
        f" {SESSIONS} sessions peak {extra['pss_peak']:.1f} / last {extra['pss_last']:.1f};"
        f" {extra['processes_idle']:.0f} processes idle, {extra['processes_open']:.0f} with"
        f" the sessions open"
    )
    print(
        f"  browser, {SETTLE_S:.0f} s after closing the sessions: Python"
        f" {python.extra['closed']:.1f}, + Chromium {extra['closed']:.1f}"
        f" (Pss {extra['pss_closed']:.1f})"
    )
    figures = {
        row.name: {
            "idle": round(row.idle, 1),
            "peak": round(row.peak, 1),
            "last": round(row.last, 1),
            **{key: round(value, 1) for key, value in row.extra.items()},
        }
        for row in rows
    }
    line = {"bench": "memory", "cores": os.cpu_count(), "callers": CALLERS, "seconds": SECONDS}
    print(json.dumps({**line, "mib": figures}))


async def main() -> None:
    LOGS.mkdir(parents=True, exist_ok=True)
    system = System(LOGS / "memory", replicas=1)  # one process per service
    started: list[ServiceProcess] = []
    try:
        await system.start()
        front = await start_gateway(system, started)
        rows = [
            Watched(name, rss_of(pid_of(system, name)))
            for name in ("claims", "approvals", "payments")
        ]
        browser = pid_of(system, "browser")
        python = Watched("browser, Python", rss_of(browser, children=False))
        whole = Watched("browser + Chromium", rss_of(browser))
        tasks_row = Watched("tasks", rss_of(pid_of(system, "tasks")))
        gateway_row = Watched("gateway", rss_of(front.gateway_pid))
        rows += [python, whole, tasks_row, gateway_row]

        print(
            f"memory benchmark: {os.cpu_count()} cores, resident memory (VmRSS) in MiB; idle"
            f" {SETTLE_S:.0f} s after SERVING, loads sampled every {SAMPLE_S} s"
        )
        await asyncio.sleep(SETTLE_S)
        for row in rows:
            row.idle = row.read()
        whole.extra["pss_idle"] = pss_of(browser)()
        whole.extra["processes_idle"] = len(family(browser))

        operations = Operations(system)
        people = await asyncio.gather(*(operations.person() for _ in range(CALLERS)))
        by_name = {row.name: row for row in rows}
        await storm(by_name["claims"], "Claim + MarkSubmitted", succeeded(operations.claim, people))
        await storm(
            by_name["approvals"], "Propose + Decide", succeeded(operations.decision, people)
        )
        await storm(
            by_name["payments"], "CreatePayment", succeeded(create_payment(operations), people)
        )
        await browser_sessions(system, python, whole)
        await tasks_and_pages(system, front, tasks_row, gateway_row)
        print_figures(rows)
    finally:
        for process in reversed(started):
            process.stop()
        await system.close()


if __name__ == "__main__":
    asyncio.run(main())
