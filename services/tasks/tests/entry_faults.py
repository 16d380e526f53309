"""The system the entry fault cases run against, and the two flows they
drive. claims, approvals, payments and the browser runner run as processes
of their own (a case kills them), each restartable on its address and
instance id with NOD_FAULTS armed or not; the tasks service runs in the
test's process, with short deadlines so a hung peer is cut off quickly."""

import asyncio
import json
import os
import pathlib
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import grpc

from nod.claims.v1 import claims_pb2 as claims
from nod.claims.v1 import claims_pb2_grpc
from nod.payments.v1 import payments_pb2 as payments
from nod.payments.v1 import payments_pb2_grpc
from nod.tasks.v1 import tasks_pb2 as pb
from nod.tasks.v1 import tasks_pb2_grpc as pb_grpc
from nod_tasks.wiring import build
from nodkit import service
from nodkit.client import open_channel
from nodtest.children import tied_to_me
from nodtest.claims import CANARY_CARD, CANARY_PASSWORD
from nodtest.demo import SHOP_USERNAME
from nodtest.processes import Peer, ServiceProcess, wait_until_serving

from .model_server import Answer, ModelServer, tool_call
from .support import SECURITY_CODE, ended, type_into_form

# A person's own call (ConfirmPayment) gives up after this.
PERSON_TIMEOUT_S = 2.0
INSISTS = "the person said continue: do it once more"


# A service process that imports its code, then waits for the rest of its
# environment (one JSON line on stdin) before it serves: started ahead of
# need, so a restart costs the service's boot, not Python's imports.
WARM = (
    "import importlib, json, os, sys;"
    "main = importlib.import_module(sys.argv[1] + '.__main__').main;"
    "os.environ.update(json.loads(sys.stdin.readline()));"
    "sys.argv = [sys.argv[1], 'serve'];"
    "sys.exit(main())"
)


class WarmProcess(ServiceProcess):
    def start(self) -> None:
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            tied_to_me([sys.executable, "-c", WARM, self.module]),
            env={**os.environ, **self.env},
            stdin=subprocess.PIPE,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()

    def go(self, more_env: dict[str, str]) -> None:
        assert self.process is not None and self.process.stdin is not None
        self.process.stdin.write(json.dumps(more_env).encode() + b"\n")
        self.process.stdin.close()


@dataclass
class Restartable:
    """A peer process that a case restarts, armed or not, where it was (its
    address and instance id). Its next life is always started ahead, warm."""

    peer: Peer
    logs: pathlib.Path
    lives: int = 0
    armed: str = ""
    spare: WarmProcess | None = None

    @classmethod
    def of(cls, peer: Peer, logs: pathlib.Path) -> "Restartable":
        restartable = cls(peer, logs)
        restartable._warm_next()
        return restartable

    @property
    def process(self) -> ServiceProcess:
        return self.peer.process

    def _warm_next(self) -> None:
        self.lives += 1
        log = self.logs / f"{self.peer.name}-{self.lives}.log"
        self.spare = WarmProcess(self.process.module, dict(self.process.env), log)
        self.spare.start()

    async def restart(self, armed: str = "") -> ServiceProcess:
        """Stops the running life (SIGKILL) and starts the next one, armed
        with `armed` (NOD_FAULTS) or clean; returns it once SERVING."""
        self.peer.stop()
        process, self.spare = self.spare, None
        assert process is not None
        process.go({"NOD_FAULTS": armed})
        self.armed = armed
        self.peer.process = process
        await wait_until_serving(self.peer.address, timeout_s=120, peer=self.peer.name)
        self._warm_next()
        return process

    def alive(self) -> bool:
        assert self.process.process is not None
        return self.process.process.poll() is None

    def stop(self) -> None:
        self.peer.stop()
        if self.spare is not None:
            self.spare.stop()


def runner_env(env: dict[str, str], instance_id: str) -> dict[str, str]:
    """A browser runner for fault cases: short deadlines and retries, so a
    hung or restarted peer is noticed in seconds; its instance id names
    its claims holder (runner_renewed)."""
    return {
        **env,
        "NOD_INSTANCE_ID": instance_id,
        "NOD_BROWSER_CLAIMS_TIMEOUT_S": "2",
        "NOD_BROWSER_ACTION_TIMEOUT_S": "3",
        "NOD_BROWSER_ENTRY_TIMEOUT_S": "10",
        "NOD_BROWSER_END_RETRY_FIRST_S": "0.2",
        "NOD_BROWSER_END_RETRY_MAX_S": "1",
        "NOD_BROWSER_MIGRATION_POLL_S": "0.2",
        "NOD_BROWSER_LEASE_RENEW_S": "0.5",
    }


async def restart_until_runner_renews(
    db, runner: str, service: Restartable, armed: str = ""
) -> None:
    """A peer's next life; callers that failed to reach it meanwhile
    wait out their channel's reconnect backoff before a case goes on:
    the browser runner renews its lease again."""
    renewed = await _lease_of(db, runner)
    await service.restart(armed)
    deadline = asyncio.get_running_loop().time() + 60
    while await _lease_of(db, runner) == renewed:
        assert asyncio.get_running_loop().time() < deadline, "the runner never renewed"
        await asyncio.sleep(0.1)


async def _lease_of(db, holder: str):
    cursor = await db.execute(
        "SELECT lease_expires_at FROM claims.holders WHERE holder = %s", (holder,)
    )
    row = await cursor.fetchone()
    return row[0] if row else None


class TasksLives:
    """The tasks service in the test's process, started afresh (only ever
    between runs of a case's task): each life stops the one before."""

    def __init__(self, settings) -> None:
        self._settings = settings
        self._running: list = []

    async def fresh(self) -> pb_grpc.TasksServiceStub:
        await self.stop()
        started = await service.start(
            await build(self._settings), self._settings, listen="127.0.0.1:0"
        )
        channel = open_channel(started.address)
        self._running.append((started, channel))
        return pb_grpc.TasksServiceStub(channel)

    async def stop(self) -> None:
        while self._running:
            started, channel = self._running.pop()
            await channel.close()
            await started.stop()


def killed(process: ServiceProcess) -> bool:
    assert process.process is not None
    return process.process.poll() == -signal.SIGKILL


def fired(process: ServiceProcess, point: str) -> bool:
    text = process.log_text()
    return any("faults.fired" in line and point in line for line in text.splitlines())


@dataclass
class Person:
    name: str
    meta: tuple
    vault: claims_pb2_grpc.VaultServiceStub
    claims: claims_pb2_grpc.ClaimsServiceStub
    payments: payments_pb2_grpc.PaymentsServiceStub
    login_id: str
    card_id: str


async def seed(claims_addr: str, payments_addr: str, name: str, meta, shop_url: str) -> Person:
    """The person's saved login for the shop (no code step) and a card."""
    channel = open_channel(claims_addr)
    vault = claims_pb2_grpc.VaultServiceStub(channel)
    login = await vault.PutItem(
        claims.PutItemRequest(
            item=claims.VaultItem(
                kind=claims.ENTRY_KIND_SAVED_LOGIN,
                label="Demo shop",
                origin=shop_url,
                fields={"username": SHOP_USERNAME, "password": CANARY_PASSWORD},
            )
        ),
        metadata=meta,
    )
    card = await vault.PutItem(
        claims.PutItemRequest(
            item=claims.VaultItem(
                kind=claims.ENTRY_KIND_CARD,
                label="Visa",
                fields={"number": CANARY_CARD, "expiry": "12/29", "holder_name": "Ada Lovelace"},
            )
        ),
        metadata=meta,
    )
    return Person(
        name,
        meta,
        vault,
        claims_pb2_grpc.ClaimsServiceStub(channel),
        payments_pb2_grpc.PaymentsServiceStub(open_channel(payments_addr)),
        login.item.id,
        card.item.id,
    )


@dataclass
class Flow:
    """One way a person uses nod: what the model does the first time, what
    it insists on after the person's Continue, and the shop form it submits."""

    name: str
    form: str
    # The entry's step, by its number in the first run.
    entry_step: int
    first: Callable[["Run"], list[Any]]
    insisting: Callable[["Run"], list[Any]]


@dataclass
class Run:
    """One case's task: the ids the person's answers gave it along the way."""

    person: Person
    shop_url: str
    task_id: str = ""
    payment_id: str = ""
    form_id: str = ""
    answered: set[str] = field(default_factory=set)


def _saved_login(run: Run) -> dict[str, Any]:
    return {
        "login_id": run.person.login_id,
        "fields": {"username": "#username", "password": "#password"},
        "submit": "#login button",
    }


def _pay(run: Run) -> dict[str, Any]:
    return {
        "payment_id": run.payment_id,
        "fields": {
            "number": "#card_number",
            "expiry": "#expiry",
            "security_code": "#cvc",
            "holder_name": "#holder",
        },
        "submit": "#checkout button",
        "security_code_form_id": run.form_id,
    }


def _later(make: Callable[[], Answer]) -> Callable[[], Any]:
    """A model answer built when the request comes (it names ids given later)."""

    async def answer() -> Answer:
        return make()

    return answer


FINISH = tool_call("finish", {"message": "done"})

SIGN_IN = Flow(
    "sign in",
    "login",
    2,
    first=lambda run: [
        tool_call("navigate", {"url": f"{run.shop_url}/login"}),
        tool_call("enter_saved_login", _saved_login(run)),
        FINISH,
    ],
    insisting=lambda run: [
        tool_call("enter_saved_login", {**_saved_login(run), "new_action_reason": INSISTS}),
        FINISH,
    ],
)

PAY = Flow(
    "pay",
    "checkout",
    4,
    first=lambda run: [
        tool_call("navigate", {"url": f"{run.shop_url}/checkout"}),
        tool_call(
            "request_payment",
            {
                "merchant_origin": run.shop_url,
                "amount_minor": 2500,
                "currency": "EUR",
                "description": "Desk lamp",
                "card_id": run.person.card_id,
            },
        ),
        tool_call(
            "ask_private_form",
            {"kind": "security_code", "reason": "The checkout asks for the security code."},
        ),
        _later(lambda: tool_call("pay", _pay(run))),
        FINISH,
    ],
    insisting=lambda run: [
        _later(lambda: tool_call("pay", {**_pay(run), "new_action_reason": INSISTS})),
        FINISH,
    ],
)


def asks_for_a_login(task: pb.Task) -> bool:
    return (
        task.state == pb.TASK_STATE_WAITING
        and task.wait.kind == pb.WAIT_KIND_PRIVATE_FORM
        and task.wait.form_kind == pb.FORM_KIND_LOGIN
    )


def settled(task: pb.Task) -> bool:
    """Ended, or waiting for the person to check what happened (or, after
    a sign-in it could not judge, for a password instead of the saved one)."""
    checking = task.state == pb.TASK_STATE_WAITING and task.wait.kind == pb.WAIT_KIND_CHECK
    return ended(task) or checking or asks_for_a_login(task)


async def answer_what_is_asked(stub, run: Run, task: pb.Task) -> None:
    """The person's part of the flow: a yes to the payment, the security code."""
    if task.state != pb.TASK_STATE_WAITING or task.wait.id in run.answered:
        return
    person = run.person
    if task.wait.kind == pb.WAIT_KIND_PAYMENT:
        run.answered.add(task.wait.id)
        run.payment_id = task.wait.id
        request = payments.ConfirmPaymentRequest(
            payment_id=task.wait.id, decision=payments.DECISION_YES
        )
        try:
            await person.payments.ConfirmPayment(
                request, metadata=person.meta, timeout=PERSON_TIMEOUT_S
            )
        except grpc.aio.AioRpcError:
            pass  # a person whose yes got no answer waits: the task reads it
    elif task.wait.form_kind == pb.FORM_KIND_SECURITY_CODE:
        run.answered.add(task.wait.id)
        run.form_id = task.wait.id
        entry_id = await type_into_form(person, task, {"security_code": SECURITY_CODE})  # type: ignore[arg-type]
        await stub.SubmitPrivateForm(
            pb.SubmitPrivateFormRequest(task_id=task.id, form_id=task.wait.id, item_id=entry_id),
            metadata=person.meta,
        )


async def drive(
    stub,
    run: Run,
    *,
    until: Callable[[pb.Task], bool],
    meanwhile: Callable[[], Any] | None = None,
    timeout_s: float = 60.0,
) -> pb.Task:
    """Reads the task, answering what the person is asked, until `until`;
    `meanwhile` runs between reads (a case restarting what its fault killed)."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    while True:
        if meanwhile is not None:
            await meanwhile()
        request = pb.GetTaskRequest(task_id=run.task_id)
        task = (await stub.GetTask(request, metadata=run.person.meta)).task
        if until(task):
            return task
        await answer_what_is_asked(stub, run, task)
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"task {run.task_id} never settled: {task}")
        await asyncio.sleep(0.05)


async def rows(db, sql: str, *params: Any) -> list[tuple]:
    cursor = await db.execute(sql, params)
    return await cursor.fetchall()


async def states_of(db, task_id: str) -> dict[str, list[str]]:
    """The task's claims, payments and steps as their services recorded them."""
    return {
        "claims": [
            r[0]
            for r in await rows(
                db,
                "SELECT state FROM claims.claims WHERE task_id = %s ORDER BY created_at",
                task_id,
            )
        ],
        "payments": [
            r[0]
            for r in await rows(
                db, "SELECT state FROM payments.payments WHERE task_id = %s", task_id
            )
        ],
        "steps": [
            r[0]
            for r in await rows(
                db, "SELECT state FROM tasks.steps WHERE task_id = %s ORDER BY number", task_id
            )
        ],
    }


def none_running(states: dict[str, list[str]]) -> bool:
    return all("running" not in values for values in states.values())


async def reconciled(db, task_id: str, timeout_s: float = 45.0) -> dict[str, list[str]]:
    """The records once nothing of the task is RUNNING (the ends are told
    in the background); fails with what is still RUNNING."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    while True:
        states = await states_of(db, task_id)
        if none_running(states):
            return states
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"left RUNNING after the reconcile: {states}")
        await asyncio.sleep(0.1)


async def answer_check_or_continue(stub, run: Run, task: pb.Task, happened: bool) -> None:
    """What a person does with a settled task: a check is answered with
    what the shop shows; an ended task is told to continue."""
    meta = run.person.meta
    if asks_for_a_login(task):
        # Rather than type a password: stop, then go on from there.
        await stub.Stop(pb.StopRequest(task_id=run.task_id), metadata=meta)
        task = await drive(stub, run, until=ended)
    if ended(task):
        await stub.Continue(
            pb.ContinueRequest(task_id=run.task_id, text="I looked; go on"), metadata=meta
        )
        return
    resolution = pb.RESOLUTION_HAPPENED if happened else pb.RESOLUTION_DID_NOT_HAPPEN
    await stub.ResolveUncertain(
        pb.ResolveUncertainRequest(
            task_id=run.task_id, step=int(task.wait.id), resolution=resolution
        ),
        metadata=meta,
    )


def asked_again(model: ModelServer) -> Callable[[pb.Task], bool]:
    """Settled again after the model was asked once more."""
    before = len(model.requests)
    return lambda task: len(model.requests) > before and settled(task)
