"""Builders for the tasks tests: the person's things, the person's answers
(as the gateway gives them), and waiting for a task to reach a state."""

import asyncio
from dataclasses import dataclass
from typing import Any

import pyotp

from nod.approvals.v1 import approvals_pb2 as approvals
from nod.approvals.v1 import approvals_pb2_grpc
from nod.claims.v1 import claims_pb2 as claims
from nod.claims.v1 import claims_pb2_grpc
from nod.payments.v1 import payments_pb2 as payments
from nod.payments.v1 import payments_pb2_grpc
from nod.tasks.v1 import tasks_pb2 as pb
from nod_tasks.domain.model import AppAccount, SavedCard, SavedLogin, TaskContext
from nodkit.client import open_channel
from nodtest.claims import CANARY_CARD, CANARY_PASSWORD
from nodtest.demo import SHOP_TOTP_SEED, SHOP_TOTP_USERNAME
from nodtest.processes import Peer

from .model_server import tool_call

SECURITY_CODE = "737"


@dataclass
class Peers:
    claims: Peer
    approvals: Peer
    payments: Peer
    browser: Peer


@dataclass
class Person:
    name: str
    meta: tuple
    vault: claims_pb2_grpc.VaultServiceStub
    claims: claims_pb2_grpc.ClaimsServiceStub
    approvals: approvals_pb2_grpc.ApprovalsServiceStub
    payments: payments_pb2_grpc.PaymentsServiceStub
    login: claims.VaultItem
    card: claims.VaultItem
    account: approvals.Account
    shop_url: str

    def context(self, text: str, task_id: str = "") -> TaskContext:
        """What the tasks service tells a model about this person's things."""
        return TaskContext(
            task_id,
            text,
            [SavedLogin(self.login.id, self.login.label, self.shop_url, "")],
            [SavedCard(self.card.id, self.card.label, self.card.fields["number"], "12/29")],
            [AppAccount(self.account.id, "webhook", self.account.label)],
        )


async def seed_person(peers: Peers, name: str, meta, shop, app_state) -> Person:
    claims_channel = open_channel(peers.claims.address)
    vault = claims_pb2_grpc.VaultServiceStub(claims_channel)
    login = await vault.PutItem(
        claims.PutItemRequest(
            item=claims.VaultItem(
                kind=claims.ENTRY_KIND_SAVED_LOGIN,
                label="Demo shop",
                origin=shop.url,
                fields={"username": SHOP_TOTP_USERNAME, "password": CANARY_PASSWORD},
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
    approvals_stub = approvals_pb2_grpc.ApprovalsServiceStub(open_channel(peers.approvals.address))
    account = await approvals_stub.ConnectAccount(
        approvals.ConnectAccountRequest(
            account=approvals.Account(
                app="webhook", label="Demo app", settings={"url": f"{app_state.url}/hooks/nod"}
            )
        ),
        metadata=meta,
    )
    return Person(
        name=name,
        meta=meta,
        vault=vault,
        claims=claims_pb2_grpc.ClaimsServiceStub(claims_channel),
        approvals=approvals_stub,
        payments=payments_pb2_grpc.PaymentsServiceStub(open_channel(peers.payments.address)),
        login=login.item,
        card=card.item,
        account=account.account,
        shop_url=shop.url,
    )


async def wait_for(stub, meta, task_id: str, check, *, timeout_s: float = 30.0) -> pb.Task:
    """Reads the task until check(task) holds; fails with the last one seen."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    while True:
        task = (await stub.GetTask(pb.GetTaskRequest(task_id=task_id), metadata=meta)).task
        if check(task):
            return task
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"task {task_id} never matched: {task}")
        await asyncio.sleep(0.05)


def waiting(kind: int):
    return lambda task: task.state == pb.TASK_STATE_WAITING and task.wait.kind == kind


def ended(task: pb.Task) -> bool:
    return task.state in (
        pb.TASK_STATE_DONE,
        pb.TASK_STATE_FAILED,
        pb.TASK_STATE_STOPPED,
        pb.TASK_STATE_INTERRUPTED,
    )


async def type_into_form(person: Person, task: pb.Task, fields: dict[str, str]) -> str:
    """What the gateway does with the private form: the typed value goes
    straight to the vault; only its id reaches the tasks service."""
    kinds = {
        pb.FORM_KIND_ONE_TIME_CODE: claims.ENTRY_KIND_ONE_TIME_CODE,
        pb.FORM_KIND_PASSWORD: claims.ENTRY_KIND_TYPED_PASSWORD,
        pb.FORM_KIND_LOGIN: claims.ENTRY_KIND_TYPED_PASSWORD,
        pb.FORM_KIND_SECURITY_CODE: claims.ENTRY_KIND_SECURITY_CODE,
    }
    kind = kinds[task.wait.form_kind]
    # For the page and frame the form names (a security code goes with its card).
    where = (
        {}
        if kind == claims.ENTRY_KIND_SECURITY_CODE
        else {"origin": task.wait.origin, "frame_origin": task.wait.frame_origin}
    )
    entry = await person.vault.PutPrivateEntry(
        claims.PutPrivateEntryRequest(task_id=task.id, kind=kind, fields=fields, **where),
        metadata=person.meta,
    )
    return entry.id


def one_time_code() -> str:
    return pyotp.TOTP(SHOP_TOTP_SEED).now()


async def submit_code(stub, person: Person, task: pb.Task, code: str = "") -> pb.Task:
    """The person types the code (the shop's current one unless `code`)."""
    entry_id = await type_into_form(person, task, {"code": code or one_time_code()})
    request = pb.SubmitPrivateFormRequest(task_id=task.id, form_id=task.wait.id, item_id=entry_id)
    return (await stub.SubmitPrivateForm(request, metadata=person.meta)).task


async def submit_security_code(stub, person: Person, task: pb.Task) -> pb.Task:
    entry_id = await type_into_form(person, task, {"security_code": SECURITY_CODE})
    request = pb.SubmitPrivateFormRequest(task_id=task.id, form_id=task.wait.id, item_id=entry_id)
    return (await stub.SubmitPrivateForm(request, metadata=person.meta)).task


async def say_yes_to_payment(person: Person, task: pb.Task) -> None:
    await person.payments.ConfirmPayment(
        payments.ConfirmPaymentRequest(payment_id=task.wait.id, decision=payments.DECISION_YES),
        metadata=person.meta,
    )


async def say_yes_to_action(person: Person, task: pb.Task) -> approvals.Approval:
    reply = await person.approvals.Decide(
        approvals.DecideRequest(approval_id=task.wait.id, decision=approvals.DECISION_YES),
        metadata=person.meta,
    )
    return reply.approval


async def steps_of(stub, meta, task_id: str) -> list[pb.Step]:
    reply = await stub.ListTaskEvents(pb.ListTaskEventsRequest(task_id=task_id), metadata=meta)
    return list(reply.steps)


async def events_of(stub, meta, task_id: str) -> list[pb.TaskEvent]:
    reply = await stub.ListTaskEvents(
        pb.ListTaskEventsRequest(task_id=task_id, page_size=500), metadata=meta
    )
    return list(reply.events)


async def begin(stub, person: Person, text: str, **fields: Any) -> pb.Task:
    reply = await stub.StartTask(pb.StartTaskRequest(text=text, **fields), metadata=person.meta)
    return reply.task


async def save_login(person: Person, origin: str, username: str, password: str, **more) -> str:
    reply = await person.vault.PutItem(
        claims.PutItemRequest(
            item=claims.VaultItem(
                kind=claims.ENTRY_KIND_SAVED_LOGIN,
                label="Work site",
                origin=origin,
                fields={"username": username, "password": password, **more},
            )
        ),
        metadata=person.meta,
    )
    return reply.item.id


def tools_and_states(steps: list[pb.Step]) -> list[tuple[str, int]]:
    return [(s.tool, s.state) for s in steps]


async def payment_of(person: Person, payment_id: str) -> payments.Payment:
    request = payments.GetPaymentRequest(payment_id=payment_id)
    return (await person.payments.GetPayment(request, metadata=person.meta)).payment


def note_action(person: Person, **more) -> tuple:
    """The model's proposal of the demo task's note to the demo app."""
    return tool_call(
        "propose_app_action",
        {
            "account_id": person.account.id,
            "action": "post",
            "parameters": {"note": "hello from nod"},
            "summary": "Send the note to the demo app",
            **more,
        },
    )
