"""`make bench`: what a tool call costs inside the tasks service, and how fast
Stop stops 50 tasks.

The tasks service runs as a process against real claims and approvals
services (it reads the person's saved items and apps for every model
request); the model provider and the browser runner are local stand-ins that
answer at once: the model asks for `read_page` again and again, the browser
answers ReadPage with a small page. Measured at the stand-ins, per step:

  before the call: from the model's answer leaving to the ReadPage arriving
                   (the step recorded RUNNING, with its event and transcript)
  after the call:  from ReadPage's answer leaving to the next model request
                   arriving (the end recorded, its event, the transcript, the
                   context read again, the next request built)

beside a bare loop in this process making the same two calls back to back.
Then 50 tasks (8 running, their model requests held; 42 queued) and one
Stop: the time until every one of them reads STOPPED.
"""

import asyncio
import base64
import json
import os
import pathlib
import secrets
import statistics
import subprocess
import sys
import time
import uuid

import grpc
from aiohttp import ClientSession, web
from pydantic import SecretStr

from nod.browser.v1 import browser_pb2, browser_pb2_grpc
from nod.tasks.v1 import tasks_pb2 as pb
from nod.tasks.v1 import tasks_pb2_grpc
from nodkit.client import call_metadata, open_channel, wait_until_serving
from nodtest.children import tied_to_me
from nodtest.database import create_test_database, drop_test_database
from nodtest.processes import free_port

ROOT = pathlib.Path(__file__).resolve().parent.parent
STEPS = int(os.environ.get("BENCH_TASK_STEPS", "300"))
STOPPED_TASKS = 50
TOKEN = SecretStr(secrets.token_urlsafe(16))
LOGS = ROOT / "var" / "bench"


class Clock:
    """When each stand-in answered or was asked, in order."""

    def __init__(self) -> None:
        self.model_answered: list[float] = []
        self.read_asked: list[float] = []
        self.read_answered: list[float] = []
        self.model_asked: list[float] = []


class Browser(browser_pb2_grpc.BrowserServiceServicer):
    def __init__(self, clock: Clock) -> None:
        self.clock = clock

    async def OpenSession(self, request, context):
        return browser_pb2.OpenSessionResponse(session_id=str(uuid.uuid4()))

    async def ReadPage(self, request, context):
        self.clock.read_asked.append(time.perf_counter())
        page = browser_pb2.Page(url="https://shop.example/", title="Shop", text="Welcome")
        self.clock.read_answered.append(time.perf_counter())
        return browser_pb2.ReadPageResponse(page=page)


def read_page_call() -> dict:
    call = {"id": uuid.uuid4().hex, "type": "function"}
    call["function"] = {"name": "read_page", "arguments": json.dumps({})}
    return {"choices": [{"message": {"role": "assistant", "tool_calls": [call]}}]}


def finish_call() -> dict:
    call = {"id": uuid.uuid4().hex, "type": "function"}
    call["function"] = {"name": "finish", "arguments": json.dumps({"message": "done"})}
    return {"choices": [{"message": {"role": "assistant", "tool_calls": [call]}}]}


class Model:
    """Answers read_page STEPS times, then finish; or holds every request."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.hold = asyncio.Event()
        self.holding = False

    async def complete(self, request: web.Request) -> web.Response:
        await request.read()
        self.clock.model_asked.append(time.perf_counter())
        if self.holding:
            await self.hold.wait()
        body = finish_call() if len(self.clock.model_asked) > STEPS else read_page_call()
        response = web.json_response(body)
        self.clock.model_answered.append(time.perf_counter())
        return response


def percentiles(values: list[float]) -> str:
    values = sorted(values)
    p99 = values[max(int(len(values) * 0.99) - 1, 0)]
    return f"p50 {statistics.median(values) * 1000:6.2f} ms   p99 {p99 * 1000:6.2f} ms"


def gaps(clock: Clock) -> tuple[list[float], list[float]]:
    steps = min(len(clock.read_asked), len(clock.model_answered), len(clock.model_asked) - 1)
    before = [clock.read_asked[i] - clock.model_answered[i] for i in range(steps)]
    after = [clock.model_asked[i + 1] - clock.read_answered[i] for i in range(steps)]
    return before[20:], after[20:]


async def bare_loop(model_url: str, browser_addr: str, clock: Clock) -> None:
    browser = browser_pb2_grpc.BrowserServiceStub(open_channel(browser_addr))
    async with ClientSession() as http:
        for _ in range(STEPS):
            async with http.post(f"{model_url}/chat/completions", json={"messages": []}) as r:
                await r.read()
            await browser.ReadPage(browser_pb2.ReadPageRequest(session_id="s"), timeout=5)


def start(module: str, env: dict[str, str], log: str) -> subprocess.Popen:
    out = (LOGS / log).open("wb")
    return subprocess.Popen(
        tied_to_me([sys.executable, "-m", module, "serve"]),
        env={**os.environ, **env},
        stdout=out,
        stderr=subprocess.STDOUT,
    )


async def main() -> None:
    LOGS.mkdir(parents=True, exist_ok=True)
    database_url = create_test_database()
    processes: list[subprocess.Popen] = []
    clock = Clock()
    model = Model(clock)
    app = web.Application()
    app.router.add_post("/v1/chat/completions", model.complete)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    model_port = free_port()
    await web.TCPSite(runner, "127.0.0.1", model_port).start()
    model_url = f"http://127.0.0.1:{model_port}/v1"
    browser_server = grpc.aio.server()
    browser_pb2_grpc.add_BrowserServiceServicer_to_server(Browser(clock), browser_server)
    browser_addr = f"127.0.0.1:{browser_server.add_insecure_port('127.0.0.1:0')}"
    await browser_server.start()
    try:
        shared = {
            "NOD_DATABASE_URL": database_url,
            "NOD_SERVICE_TOKEN": TOKEN.get_secret_value(),
            "NOD_VAULT_KEY": base64.b64encode(os.urandom(32)).decode(),
            "NOD_LOG_LEVEL": "INFO",
        }
        addresses = {name: f"127.0.0.1:{free_port()}" for name in ("claims", "approvals", "tasks")}
        for name, address in addresses.items():
            shared[f"NOD_{name.upper()}_ADDR"] = address
        for name in ("claims", "approvals", "tasks"):
            subprocess.run(  # noqa: ASYNC221 - set-up, before anything is measured
                [sys.executable, "-m", f"nod_{name}", "migrate"],
                env={**os.environ, **shared},
                check=True,
                capture_output=True,
            )
        env = {
            **shared,
            "NOD_BROWSER_ADDR": browser_addr,
            "NOD_MODEL_URL": model_url,
            "NOD_TASKS_MAX_STEPS_PER_RUN": str(STEPS + 10),
        }
        for name in ("claims", "approvals", "tasks"):
            listen = {
                f"NOD_{name.upper()}_LISTEN": addresses[name],
                "NOD_INSTANCE_ID": f"bench-{name}",
            }
            processes.append(start(f"nod_{name}", {**env, **listen}, f"tasks-bench-{name}.log"))
        for address in addresses.values():
            await wait_until_serving(address)
        meta = call_metadata(TOKEN, "bench-person")
        tasks = tasks_pb2_grpc.TasksServiceStub(open_channel(addresses["tasks"]))

        print(
            f"tasks benchmark: {os.cpu_count()} cores, {STEPS} steps, stand-ins answering at once"
        )
        task = (
            await tasks.StartTask(pb.StartTaskRequest(text="read and read"), metadata=meta)
        ).task
        while task.state not in (pb.TASK_STATE_DONE, pb.TASK_STATE_FAILED):
            await asyncio.sleep(0.2)
            task = (await tasks.GetTask(pb.GetTaskRequest(task_id=task.id), metadata=meta)).task
        before, after = gaps(clock)
        steps = [b + a for b, a in zip(before, after, strict=True)]
        print(f"  a step in the tasks service   {percentiles(steps)}")
        print(f"    before the tool call        {percentiles(before)}")
        print(f"    after it                    {percentiles(after)}")
        bare = Clock()
        clock.__dict__.update(bare.__dict__)
        await bare_loop(model_url, browser_addr, clock)
        bare_before, bare_after = gaps(clock)
        bare_steps = [b + a for b, a in zip(bare_before, bare_after, strict=True)]
        print(f"  a step of the bare loop       {percentiles(bare_steps)}")
        overhead = statistics.median(steps) - statistics.median(bare_steps)
        print(f"  the tasks service's overhead per tool call: {overhead * 1000:.2f} ms at p50")

        model.holding = True
        started = [
            (await tasks.StartTask(pb.StartTaskRequest(text=f"hold {i}"), metadata=meta)).task.id
            for i in range(STOPPED_TASKS)
        ]
        while True:
            listed = await tasks.ListTasks(pb.ListTasksRequest(page_size=100), metadata=meta)
            running = [
                t for t in listed.tasks if t.id in started and t.state == pb.TASK_STATE_RUNNING
            ]
            if len(running) >= 8:
                break
            await asyncio.sleep(0.05)
        begun = time.perf_counter()
        stopping = asyncio.ensure_future(tasks.Stop(pb.StopRequest(), metadata=meta))
        while True:
            listed = await tasks.ListTasks(pb.ListTasksRequest(page_size=100), metadata=meta)
            states = [t.state for t in listed.tasks if t.id in started]
            if all(s == pb.TASK_STATE_STOPPED for s in states):
                break
        all_stopped = time.perf_counter() - begun
        await stopping
        answered = time.perf_counter() - begun
        print(
            f"  Stop with 8 running and {STOPPED_TASKS - 8} queued: every one STOPPED after"
            f" {all_stopped * 1000:.1f} ms (Stop answered after {answered * 1000:.1f} ms)"
        )
        model.hold.set()
    finally:
        for process in processes:
            process.kill()
            process.wait()
        await browser_server.stop(0)
        await runner.cleanup()
        drop_test_database(database_url)


if __name__ == "__main__":
    asyncio.run(main())
