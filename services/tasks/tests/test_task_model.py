"""The tasks service against a plain-Python model of Stop, Continue and late
input (G9, G11, G12), driven by a hypothesis state machine. The model server
stands in for the provider, scripted: a task's run asks the person for a
one-time code in a private form, and once the form is answered it finishes.
Rules: StartTask (and its resend after a lost answer), SubmitPrivateForm
(in time, resent, and late: after Stop), Stop of one task or of all the
person's tasks, Continue, and restarts of the tasks service (stop and start
with the same instance id). Every model request that carries a form's
answer is that form acted on: the history must show each form acted on at
most once, and none given after its task's run was stopped.

Replay a failure with NOD_HYPOTHESIS_SEED=<the seed printed first>; a deep
run with NOD_SOAK_SCALE=50."""

import asyncio
import uuid
from dataclasses import dataclass, field
from typing import Any

import grpc
import psycopg
import pytest
from aiohttp import web
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from nod.claims.v1 import claims_pb2 as claims_pb
from nod.claims.v1 import claims_pb2_grpc
from nod.tasks.v1 import tasks_pb2 as pb
from nod.tasks.v1 import tasks_pb2_grpc
from nod_tasks.wiring import build
from nodkit import service
from nodkit.client import NodRpcError, call_metadata, open_channel
from nodkit.db import libpq_url
from nodtest.history_check import History, Outcome
from nodtest.logcapture import LogTee
from nodtest.model_runs import InProcess, Loop, run_machine
from nodtest.processes import free_port
from nodtest.soak_report import soak_scale

from .conftest import tasks_settings
from .model_server import Answer, ModelServer, tool_call

pytestmark = pytest.mark.state_machine

# Each step waits for the agent loop to settle: far slower than a plain call.
EXAMPLES = 40
STEPS = 50
MIN_STEPS = 2000
STEPS_BETWEEN_RESTARTS = 20
SETTLE_S = 20.0
LIVE_TASKS = 8

WAITING = pb.TASK_STATE_WAITING
DONE = pb.TASK_STATE_DONE
STOPPED = pb.TASK_STATE_STOPPED
SETTLED = frozenset({WAITING, DONE, STOPPED, pb.TASK_STATE_FAILED, pb.TASK_STATE_INTERRUPTED})


def marker_of(body: dict[str, Any]) -> str:
    for message in body["messages"]:
        content = message.get("content") or ""
        if message["role"] == "user" and "[task " in content:
            return content.split("[task ", 1)[1].split("]", 1)[0]
    return ""


def calls_made(body: dict[str, Any]) -> list[str]:
    return [
        call["function"]["name"]
        for message in body["messages"]
        for call in message.get("tool_calls") or ()
    ]


@dataclass
class FormScript:
    """The stand-in model: a run reads the code page, then asks for a code;
    the code answered, it finishes. It notes each request that carried a
    form's answer."""

    page_url: str = ""
    answered: list[str] = field(default_factory=list)

    async def answer(self, body: dict[str, Any]) -> Answer:
        last = body["messages"][-1]
        made = calls_made(body)
        answering_form = made[-1:] == ["ask_private_form"]
        if last["role"] == "tool" and answering_form and "form" in (last.get("content") or ""):
            self.answered.append(marker_of(body))
            return tool_call("finish", {"message": "signed in"})
        told_to_read = last["role"] == "tool" and "read the page" in (last.get("content") or "")
        if "navigate" not in made or told_to_read:
            # A private form is for a page the task read (G13): again, if
            # the last look didn't load (a loaded machine), as a model would.
            return tool_call("navigate", {"url": self.page_url})
        # Never the same call twice in a task: a repeated identical call is
        # refused as a possible duplicate.
        reason = f"the shop's code ({len(body['messages'])})"
        return tool_call("ask_private_form", {"kind": "one_time_code", "reason": reason})


@dataclass
class ModelTask:
    marker: str
    request_id: str
    task_id: str = ""
    state: int = WAITING
    run: int = 1
    form_id: str = ""
    forms_answered: int = 0

    @property
    def scope(self) -> str:
        return f"{self.task_id}/run-{self.run}"


@dataclass
class Run:
    loop: Loop
    tasks: InProcess
    claims_address: str
    script: FormScript
    token: object
    database_url: str
    log: LogTee


class TasksModel(RuleBasedStateMachine):
    run: Run
    steps_taken = 0

    tasks = Bundle("tasks")

    def __init__(self) -> None:
        super().__init__()
        self.person = f"person-{uuid.uuid4().hex[:12]}"
        self.meta = call_metadata(self.run.token, self.person)  # type: ignore[arg-type]
        self.model: dict[str, ModelTask] = {}
        self.history = History()
        self.may_restart = False
        self.steps_since_restart = 0
        self.answered_seen = len(self.run.script.answered)
        self.vault_channel: grpc.aio.Channel | None = None

    @property
    def stub(self) -> tasks_pb2_grpc.TasksServiceStub:
        return self.run.tasks.stub(tasks_pb2_grpc.TasksServiceStub)

    def call(self, method, request):
        async def go():
            try:
                return await method(request, metadata=self.meta, timeout=30)
            except grpc.aio.AioRpcError as raw:
                return NodRpcError(raw)

        return self.run.loop.run(go())

    def settled(self, task: ModelTask) -> pb.Task:
        """The task once its agent loop has nothing left to do for now."""

        async def read():
            deadline = asyncio.get_running_loop().time() + SETTLE_S
            while True:
                request = pb.GetTaskRequest(task_id=task.task_id)
                got = (await self.stub.GetTask(request, metadata=self.meta)).task
                if got.state in SETTLED:
                    return got
                if asyncio.get_running_loop().time() > deadline:
                    raise AssertionError(f"never settled: {got}{await self.why(task)}")
                await asyncio.sleep(0.02)

        return self.run.loop.run(read())

    async def why(self, task: ModelTask) -> str:
        """What the queue looked like, for a task that never settled: its
        row, the leases, what else was queued, and the log of it."""
        async with await psycopg.AsyncConnection.connect(
            libpq_url(self.run.database_url), autocommit=True
        ) as conn:
            rows = {
                "task": "SELECT state, run, cleanup_pending, runner_instance, updated_at, now()"
                " FROM tasks.tasks WHERE id = %(id)s",
                "leases": "SELECT *, now() FROM tasks.instance_leases",
                "by state": "SELECT state, cleanup_pending, runner_instance, count(*)"
                " FROM tasks.tasks GROUP BY 1, 2, 3",
            }
            found = [
                f"{name}: {await (await conn.execute(query, {'id': task.task_id})).fetchall()}"
                for name, query in rows.items()
            ]
        logged = [line for line in self.run.log.lines if task.task_id in line]
        return "\n".join(["", *found, "log of it:", *logged[-30:]])

    def expect(self, task: ModelTask) -> None:
        got = self.settled(task)
        assert got.state == task.state, (got.message, got, task)
        if task.state == WAITING:
            assert got.wait.kind == pb.WAIT_KIND_PRIVATE_FORM
            task.form_id = got.wait.id

    def private_entry(self, task: ModelTask) -> str:
        async def put():
            vault = claims_pb2_grpc.VaultServiceStub(self.vault_channel)
            request = claims_pb.PutPrivateEntryRequest(
                task_id=task.task_id,
                kind=claims_pb.ENTRY_KIND_ONE_TIME_CODE,
                fields={"code": "492817"},
                origin=self.run.script.page_url.rsplit("/", 1)[0],
            )
            return (await vault.PutPrivateEntry(request, metadata=self.meta)).id

        return self.run.loop.run(put())

    # --- rules ----------------------------------------------------------------

    @initialize(may_restart=st.booleans())
    def person_arrives(self, may_restart: bool) -> None:
        self.may_restart = may_restart

        async def connect():
            # Made on the run's loop, where every call is awaited.
            return open_channel(self.run.claims_address)

        self.vault_channel = self.run.loop.run(connect())

    # A task waiting for its form keeps its browser session: fewer live
    # tasks than the runner has places (32), or the next one would wait for
    # a place (a rule of its own, tested in test_session_release.py). Each
    # start opens a browser context and loads a page (~200 ms, most of a
    # run's time): a few live tasks leave the steps to Stop, Continue and
    # late input, which this machine is about.
    @precondition(lambda self: sum(t.state != STOPPED for t in self.model.values()) < LIVE_TASKS)
    @rule(target=tasks, lose_first_answer=st.booleans())
    def start_task(self, lose_first_answer):
        task = ModelTask(uuid.uuid4().hex[:10], f"request-{uuid.uuid4().hex}")
        request = pb.StartTaskRequest(
            text=f"Sign in to the shop [task {task.marker}]", request_id=task.request_id
        )
        reply = self.call(self.stub.StartTask, request)
        if lose_first_answer:
            reply = self.call(self.stub.StartTask, request)
        assert not isinstance(reply, NodRpcError), reply
        task.task_id = reply.task.id
        assert task.task_id not in self.model, "a resent StartTask made a second task"
        self.model[task.task_id] = task
        self.expect(task)
        return task.task_id

    @rule(task_id=tasks, resend=st.booleans())
    def submit_the_code(self, task_id, resend):
        task = self.model[task_id]
        if not task.form_id:
            return
        entry_id = self.private_entry(task)
        request = pb.SubmitPrivateFormRequest(
            task_id=task_id, form_id=task.form_id, item_id=entry_id
        )
        reply = self.call(self.stub.SubmitPrivateForm, request)
        outcome = Outcome.FAILED if isinstance(reply, NodRpcError) else Outcome.OK
        self.history.operation(task.form_id, "submit_form", outcome, scope=task.scope)
        if resend:
            self.call(self.stub.SubmitPrivateForm, request)
            self.history.operation(task.form_id, "submit_form", Outcome.UNKNOWN, scope=task.scope)
        if task.state == STOPPED:
            assert isinstance(reply, NodRpcError), reply
            assert (reply.code, reply.reason) == (
                grpc.StatusCode.FAILED_PRECONDITION,
                "TASK_STOPPED",
            ), reply
        elif task.state == WAITING:
            assert not isinstance(reply, NodRpcError), reply
            task.state = DONE
            task.forms_answered += 1
        else:
            assert isinstance(reply, NodRpcError), reply
        self.expect(task)

    @rule(task_id=tasks)
    def stop_one(self, task_id):
        task = self.model[task_id]
        reply = self.call(self.stub.Stop, pb.StopRequest(task_id=task_id))
        assert not isinstance(reply, NodRpcError), reply
        expected = {task_id} if task.state == WAITING else set()
        assert {t.id for t in reply.tasks} == expected
        if task.state == WAITING:
            self.history.stop(task.scope)
            task.state = STOPPED
        self.expect(task)

    @rule()
    def stop_everything(self):
        reply = self.call(self.stub.Stop, pb.StopRequest())
        assert not isinstance(reply, NodRpcError), reply
        live = {t.task_id for t in self.model.values() if t.state == WAITING}
        assert {t.id for t in reply.tasks} == live
        for task_id in live:
            self.history.stop(self.model[task_id].scope)
            self.model[task_id].state = STOPPED

    @precondition(lambda self: any(t.state == STOPPED for t in self.model.values()))
    @rule(data=st.data())
    def continue_a_stopped_task(self, data):
        # In the order they were made: ids are random, the order is the run's.
        stopped = [t.task_id for t in self.model.values() if t.state == STOPPED]
        task = self.model[data.draw(st.sampled_from(stopped))]
        request = pb.ContinueRequest(task_id=task.task_id, text="I checked; go on")
        reply = self.call(self.stub.Continue, request)
        assert not isinstance(reply, NodRpcError), reply
        task.run += 1
        task.state = WAITING
        self.expect(task)

    @precondition(
        lambda self: self.may_restart and self.steps_since_restart >= STEPS_BETWEEN_RESTARTS
    )
    @rule()
    def tasks_service_restarts(self):
        """A task waiting for the person runs nothing: a restart leaves it
        waiting for the same form."""
        self.run.loop.run(self.run.tasks.restart())
        self.steps_since_restart = 0
        for task in self.model.values():
            if task.state != WAITING:
                continue
            before = task.form_id
            self.expect(task)
            assert task.form_id == before

    # --- what must always hold -----------------------------------------------

    @invariant()
    def forms_acted_on_match_the_model(self):
        TasksModel.steps_taken += 1
        self.steps_since_restart += 1
        by_marker = {t.marker: t for t in self.model.values()}
        for marker in self.run.script.answered[self.answered_seen :]:
            task = by_marker.get(marker)
            if task is None:
                continue  # another example's task
            self.history.side_effect(task.form_id, "the model was given the form's answer")
        self.answered_seen = len(self.run.script.answered)
        for task in self.model.values():
            self.history.seen(task.task_id, pb.TaskState.Name(task.state).lower())

    def teardown(self):
        try:
            self.run.loop.run(self._stop_all())
            self.history.assert_kept()
        finally:
            if self.vault_channel is not None:
                self.run.loop.run(self.vault_channel.close(None))

    async def _stop_all(self):
        # The queue is shared: nothing of this example may run in the next.
        await self.stub.Stop(pb.StopRequest(), metadata=self.meta)


async def code_page() -> web.AppRunner:
    """The site's code page, on the run's loop (a site's own address)."""

    async def page(request: web.Request) -> web.Response:
        body = "<!doctype html><title>Code</title><h1>Enter your code</h1><input name=code>"
        return web.Response(text=body, content_type="text/html")

    app = web.Application()
    app.add_routes([web.get("/code", page)])
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.2", port).start()
    return runner


# A deep run (make soak) takes NOD_SOAK_SCALE times as long as make test's.
# About five minutes alone (2,000 steps, each start and Continue loading a
# page in a new browser context); beside the rest of make test on two cores
# one run took 816 s, so the bound is well above that: it is there for a hang.
@pytest.mark.timeout(1500 * soak_scale())
def test_tasks_follow_their_model(tasks_migrated, service_token, peers, log_tee):
    loop = Loop()
    page = loop.run(code_page())
    host, port = page.addresses[0][:2]
    script = FormScript(page_url=f"http://{host}:{port}/code")
    server = ModelServer()
    server.otherwise = script.answer
    loop.run(server.start())
    settings = tasks_settings(
        tasks_migrated,
        service_token,
        peers,
        instance_id="tasks-model",
        model_url=server.url,
    )

    async def start():
        return await service.start(await build(settings), settings, listen="127.0.0.1:0")

    tasks = InProcess(start)
    loop.run(tasks.start())
    TasksModel.run = Run(
        loop, tasks, peers.claims.address, script, service_token, tasks_migrated, log_tee
    )
    TasksModel.steps_taken = 0
    try:
        run_machine(
            "tasks",
            TasksModel,
            examples=EXAMPLES,
            steps=STEPS,
            min_steps=MIN_STEPS,
            steps_done=lambda: TasksModel.steps_taken,
        )
    finally:
        loop.run(tasks.stop())
        loop.run(server.close())
        loop.run(page.cleanup())
        loop.close()
    print(f"tasks: {TasksModel.steps_taken} steps, {tasks.restarts} service restarts")
    assert TasksModel.steps_taken >= MIN_STEPS * soak_scale()
