"""`make bench`: what the gateway adds on the way to the person's page.

The whole system runs as `make run` starts it (on free ports, a database of
its own, the scripted planner), driven over HTTP with a signed-in session:

  live timeline: from a step's record in the tasks service (its event's `at`)
                 to its `line` frame arriving on an open task page's event
                 stream (SSE), beside the same events arriving on a WatchTask
                 the bench holds on the tasks service directly, at the same
                 time. BENCH_GATEWAY_TASKS demo tasks ("Send a note to the
                 demo app"), each watched from its decision to its end. The tasks
                 service's WatchTask is woken by each event's notice (LISTEN/
                 NOTIFY); the ratio is what the gateway adds. Shown
                 apart: the note's step line, which shows the decision
                 read from the approvals service (a hop of its own), and
                 the end's line, built from the event alone.
  task list:     GET /tasks for a person with 500 tasks (the page shows 50),
                 beside GET /healthz (the gateway's own database ping), the
                 ListTasks call under the page made directly, and the page of
                 a person with no tasks.
"""

import asyncio
import os
import pathlib
import re
import statistics
import sys
import tempfile
import time
import uuid

from aiohttp import ClientSession, ClientTimeout, CookieJar

from nod.approvals.v1 import approvals_pb2, approvals_pb2_grpc
from nod.tasks.v1 import tasks_pb2 as pb
from nod.tasks.v1 import tasks_pb2_grpc
from nodkit.client import open_channel
from nodtest.make_run import MakeRun

ROOT = pathlib.Path(__file__).resolve().parent.parent
NOTE = "Send a note to the demo app: hello from nod"
TASKS = int(os.environ.get("BENCH_GATEWAY_TASKS", "20"))
LISTED = 500
REQUESTS = int(os.environ.get("BENCH_GATEWAY_REQUESTS", "50"))
LOOKED_UP = "a step's line, its decision read from the approvals service"
OWN = "a line from the event alone (the task's end)"
ENDED = {pb.TASK_STATE_DONE, pb.TASK_STATE_FAILED, pb.TASK_STATE_STOPPED, pb.TASK_STATE_INTERRUPTED}


def percentiles(values: list[float]) -> tuple[float, float]:
    values = sorted(values)
    p99 = values[max(int(len(values) * 0.99) - 1, 0)]
    return statistics.median(values) * 1000, p99 * 1000


def row(name: str, values: list[float]) -> str:
    p50, p99 = percentiles(values)
    return f"  {name:<36} p50 {p50:7.2f} ms   p99 {p99:7.2f} ms   (n={len(values)})"


def stamp(event: pb.TaskEvent) -> float:
    return event.at.seconds + event.at.nanos / 1e9


async def signed_in(url: str, name: str, password: str) -> ClientSession:
    """A session cookie from the sign-in form, as a browser gets one."""
    # unsafe: aiohttp keeps no cookies from an IP address (127.0.0.1) otherwise.
    jar = CookieJar(unsafe=True)
    http = ClientSession(base_url=url, timeout=ClientTimeout(total=120), cookie_jar=jar)
    async with http.get("/signin") as reply:
        binding = re.search(r'name="binding" value="([^"]+)"', await reply.text()).group(1)  # type: ignore[union-attr]
    form = {"binding": binding, "next": "/tasks", "name": name, "password": password}
    async with http.post("/signin", data=form, headers={"origin": url}, allow_redirects=False) as r:
        assert r.status == 303, f"sign-in as {name}: {r.status}"
    return http


async def sse_arrivals(http: ClientSession, task_id: str, after: int, seen: dict[int, float]):
    """Reads the task page's event stream until its end, noting when each
    `line` frame arrived (wall clock, as the tasks service stamps events)."""
    path = f"/tasks/{task_id}/events?after={after}"
    async with http.get(path, headers={"accept": "text/event-stream"}) as stream:
        kind, number = "", ""
        async for raw in stream.content:
            text = raw.decode().rstrip("\r\n")
            if text.startswith("event:"):
                kind = text[6:].strip()
            elif text.startswith("id:"):
                number = text[3:].strip()
            elif text == "":
                if kind == "line" and number:
                    seen[int(number)] = time.time()
                if kind == "end":
                    return
                kind, number = "", ""


async def watch_arrivals(tasks, meta, task_id: str, after: int, seen: dict[int, float]) -> None:
    request = pb.WatchTaskRequest(task_id=task_id, after_event=after)
    async for reply in tasks.WatchTask(request, metadata=meta, timeout=120):
        seen[reply.event.number] = time.time()
        if reply.event.kind == "task.ended":
            return


async def wait_for(tasks, meta, task_id: str, states: set[int]) -> pb.Task:
    while True:
        task = (await tasks.GetTask(pb.GetTaskRequest(task_id=task_id), metadata=meta)).task
        if task.state in states:
            return task
        await asyncio.sleep(0.1)


async def live_timeline(run: MakeRun, http: ClientSession) -> None:
    meta = run.meta("ada")
    tasks = tasks_pb2_grpc.TasksServiceStub(open_channel(run.addresses["tasks"]))
    approvals = approvals_pb2_grpc.ApprovalsServiceStub(open_channel(run.addresses["approvals"]))
    # By what the line needs: a step's line shows its decision, read from
    # the approvals service (timeline/lookups.py); an end's line needs none.
    through_gateway: dict[str, list[float]] = {LOOKED_UP: [], OWN: []}
    direct: dict[str, list[float]] = {LOOKED_UP: [], OWN: []}
    for i in range(TASKS):
        started = pb.StartTaskRequest(text=NOTE, request_id=f"bench-{uuid.uuid4().hex}")
        task = (await tasks.StartTask(started, metadata=meta)).task
        task = await wait_for(tasks, meta, task.id, {pb.TASK_STATE_WAITING, *ENDED})
        assert task.state == pb.TASK_STATE_WAITING, f"task {i} ended before its decision"
        listed = await tasks.ListTaskEvents(
            pb.ListTaskEventsRequest(task_id=task.id, page_size=500), metadata=meta
        )
        after = listed.events[-1].number
        sse: dict[int, float] = {}
        watched: dict[int, float] = {}
        readers = [
            asyncio.ensure_future(sse_arrivals(http, task.id, after, sse)),
            asyncio.ensure_future(watch_arrivals(tasks, meta, task.id, after, watched)),
        ]
        await asyncio.sleep(0.3)  # both streams open before anything happens
        decided = approvals_pb2.DecideRequest(
            approval_id=task.wait.id, decision=approvals_pb2.DECISION_YES
        )
        await approvals.Decide(decided, metadata=meta)
        await asyncio.wait_for(asyncio.gather(*readers), 120)
        events = await tasks.ListTaskEvents(
            pb.ListTaskEventsRequest(task_id=task.id, after_event=after, page_size=500),
            metadata=meta,
        )
        for event in events.events:
            if event.number in sse and event.number in watched:
                needs = LOOKED_UP if event.step.approval_id else OWN
                through_gateway[needs].append(sse[event.number] - stamp(event))
                direct[needs].append(watched[event.number] - stamp(event))
    for needs in (OWN, LOOKED_UP):
        print(f"  {needs}:")
        print(row("  recorded -> line on the page", through_gateway[needs]))
        print(row("  recorded -> WatchTask (direct)", direct[needs]))
        ratio = statistics.median(through_gateway[needs]) / statistics.median(direct[needs])
        print(f"    page / direct = {ratio:.2f} at p50 ({len(direct[needs])} events)")


async def timed_gets(http: ClientSession, path: str) -> list[float]:
    times = []
    for _ in range(REQUESTS):
        begun = time.perf_counter()
        async with http.get(path, allow_redirects=False) as reply:
            await reply.read()
            assert reply.status == 200, f"GET {path}: {reply.status}"
        times.append(time.perf_counter() - begun)
    return times


async def task_list(run: MakeRun, url: str) -> None:
    person = f"bench-{uuid.uuid4().hex[:6]}"
    empty = f"bench-empty-{uuid.uuid4().hex[:6]}"
    passwords = {name: run.add_person(name) for name in (person, empty)}
    meta = run.meta(person)
    tasks = tasks_pb2_grpc.TasksServiceStub(open_channel(run.addresses["tasks"]))
    for i in range(LISTED):
        asked = pb.StartTaskRequest(text=f"Listed task {i}", request_id=f"list-{i}")
        await tasks.StartTask(asked, metadata=meta)
    # They end quickly (the scripted planner knows only the demo tasks); the
    # page is timed once nothing of theirs runs any more.
    for state in (pb.TASK_STATE_QUEUED, pb.TASK_STATE_RUNNING):
        while True:
            asked = pb.ListTasksRequest(state=state, page_size=1)
            if not (await tasks.ListTasks(asked, metadata=meta)).tasks:
                break
            await asyncio.sleep(0.5)
    full = await signed_in(url, person, passwords[person])
    nothing = await signed_in(url, empty, passwords[empty])
    try:
        listing: list[float] = []
        for _ in range(REQUESTS):
            begun = time.perf_counter()
            await tasks.ListTasks(pb.ListTasksRequest(page_size=50), metadata=meta)
            listing.append(time.perf_counter() - begun)
        await timed_gets(full, "/tasks")  # warm
        health = await timed_gets(full, "/healthz")
        page = await timed_gets(full, "/tasks")
        blank = await timed_gets(nothing, "/tasks")
        print(row(f"GET /tasks, {LISTED} tasks (50 shown)", page))
        print(row("GET /tasks, no tasks", blank))
        print(row("ListTasks(page_size=50), direct", listing))
        print(row("GET /healthz (baseline)", health))
        p50 = statistics.median(page)
        print(
            f"  the list page / healthz = {p50 / statistics.median(health):.2f},"
            f" / the empty page = {p50 / statistics.median(blank):.2f},"
            f" / ListTasks = {p50 / statistics.median(listing):.2f} at p50"
        )
    finally:
        await full.close()
        await nothing.close()


async def main() -> None:
    var = pathlib.Path(tempfile.mkdtemp(prefix="gateway-bench-")) / "var"
    run = MakeRun(ROOT, var, f"nod_bench_web_{uuid.uuid4().hex[:8]}", NOD_LOG_LEVEL="WARNING")
    try:
        run.urls = await asyncio.to_thread(run.start)  # type: ignore[attr-defined]
        print(
            f"gateway benchmark: {os.cpu_count()} cores, the whole system from make run,"
            " the scripted planner"
        )
        http = await signed_in(run.gateway_url, "ada", run.web_password())
        try:
            await live_timeline(run, http)
        finally:
            await http.close()
        await task_list(run, run.gateway_url)
    finally:
        await asyncio.to_thread(run.stop)
        await asyncio.to_thread(run.clean)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
