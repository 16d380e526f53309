"""A person's objects in each service, made for real by their owner over
gRPC, one fresh set per method tested, and read back so a test can show that
another person's call changed none of them.

ID_FIELDS is the table the authorization test is generated from: every id
field any request names, and how the owner makes the object it names (or
why it names no person's object)."""

import asyncio
import dataclasses
import enum
import uuid
from collections.abc import Awaitable, Callable

import grpc
from google.protobuf import struct_pb2

from nod.approvals.v1 import approvals_pb2 as approvals
from nod.approvals.v1 import approvals_pb2_grpc
from nod.browser.v1 import browser_pb2 as browser
from nod.browser.v1 import browser_pb2_grpc
from nod.claims.v1 import claims_pb2 as claims
from nod.claims.v1 import claims_pb2_grpc
from nod.payments.v1 import payments_pb2 as payments
from nod.payments.v1 import payments_pb2_grpc
from nod.tasks.v1 import tasks_pb2 as tasks
from nod.tasks.v1 import tasks_pb2_grpc
from nodtest.claims import ORIGIN, put_card, put_login
from nodtest.make_run import MakeRun

# Ends on its own: the scripted planner answers a task it has no script for
# in words, so the task is the person's and quiet.
QUIET_TASK = "Water the plants on the balcony"
# Waits on the person's private form (the demo shop's one-time code).
WAITING_TASK = "Sign in to the demo shop"
ENDED = {tasks.TASK_STATE_DONE, tasks.TASK_STATE_FAILED, tasks.TASK_STATE_STOPPED}
SETTLED = {
    tasks.TASK_STATE_DONE,
    tasks.TASK_STATE_FAILED,
    tasks.TASK_STATE_WAITING,
    tasks.TASK_STATE_STOPPED,
}


class Kind(enum.Enum):
    """What an object is, and so which service owns it."""

    TASK = "tasks:task"
    WAIT = "tasks:wait"  # the form or question a task waits on
    ITEM = "claims:saved login"
    CARD = "claims:card"
    PRIVATE_ENTRY = "claims:private entry"
    CLAIM = "claims:claim"
    ACCOUNT = "approvals:account"
    APPROVAL = "approvals:approval"
    PAYMENT = "payments:payment"
    SESSION = "browser:session"

    @property
    def service(self) -> str:
        """The process that owns it."""
        return self.value.split(":")[0]


@dataclasses.dataclass(frozen=True)
class NotAnObject:
    """An id-like field that names no person's object."""

    why: str


# Every id field a request names -> the kind of object the owner makes for
# it, or why it is no person's object. `item.id` is the id inside the
# request's `item` message.
ID_FIELDS: dict[str, Kind | NotAnObject] = {
    "task_id": Kind.TASK,
    "form_id": Kind.WAIT,
    "question_id": Kind.WAIT,
    "item_id": Kind.ITEM,
    "item.id": Kind.ITEM,
    "card_item_id": Kind.CARD,
    "companion_entry_id": Kind.PRIVATE_ENTRY,
    "claim_id": Kind.CLAIM,
    "account_id": Kind.ACCOUNT,
    "account.id": Kind.ACCOUNT,
    "approval_id": Kind.APPROVAL,
    "payment_id": Kind.PAYMENT,
    "repeat_of_payment_id": Kind.PAYMENT,
    "session_id": Kind.SESSION,
    "operation_id": NotAnObject("chosen by the caller; each person's are their own"),
    "request_id": NotAnObject("chosen by the caller; each person's are their own"),
    "holder": NotAnObject("a runner instance's lease, held for the service, not a person"),
    "page_id": NotAnObject("a tab inside the session the session_id names"),
}


def owned_by(method_service: str, field: str) -> bool:
    kind = ID_FIELDS.get(field)
    return isinstance(kind, Kind) and kind.service == method_service


class Stubs:
    def __init__(self, run: MakeRun) -> None:
        self.log_text = run.log_text
        self.vault = claims_pb2_grpc.VaultServiceStub(run.channel("claims"))
        self.claims = claims_pb2_grpc.ClaimsServiceStub(run.channel("claims"))
        self.approvals = approvals_pb2_grpc.ApprovalsServiceStub(run.channel("approvals"))
        self.payments = payments_pb2_grpc.PaymentsServiceStub(run.channel("payments"))
        self.browser = browser_pb2_grpc.BrowserServiceStub(run.channel("browser"))
        self.tasks = tasks_pb2_grpc.TasksServiceStub(run.channel("tasks"))


def fresh(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


async def settled_task(stubs: Stubs, meta, task_id: str, timeout_s: float = 60) -> tasks.Task:
    """The task once its run has stopped moving by itself."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while True:
        task = (
            await stubs.tasks.GetTask(tasks.GetTaskRequest(task_id=task_id), metadata=meta)
        ).task
        if task.state in SETTLED or loop.time() > deadline:
            return task
        await asyncio.sleep(0.2)


async def end_told(stubs: Stubs, task_id: str, timeout_s: float = 60) -> None:
    """Once the tasks service has told the other services of the task's
    end, in the background after the end (its log says so): a private entry
    put for the task before then would be discarded with the task's others."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while not any(
        "task.end_told" in line and task_id in line for line in stubs.log_text().splitlines()
    ):
        assert loop.time() < deadline, f"the end of task {task_id} was never told"
        await asyncio.sleep(0.1)


class OwnersObjects:
    """The owner's objects for one method's request, each made on first
    use: asking for an approval makes the task and account it needs."""

    def __init__(self, stubs: Stubs, meta, waiting_task: tasks.Task, holder: str) -> None:
        self._stubs = stubs
        self._meta = meta
        self._waiting = waiting_task
        self.holder = holder
        self.made: dict[Kind, str] = {}
        self._makers: dict[Kind, Callable[[], Awaitable[str]]] = {
            Kind.TASK: self._task,
            Kind.WAIT: self._wait,
            Kind.ITEM: self._login,
            Kind.CARD: self._card,
            Kind.PRIVATE_ENTRY: self._private_entry,
            Kind.CLAIM: self._claim,
            Kind.ACCOUNT: self._account,
            Kind.APPROVAL: self._approval,
            Kind.PAYMENT: self._payment,
            Kind.SESSION: self._session,
        }

    async def get(self, kind: Kind) -> str:
        if kind not in self.made:
            self.made[kind] = await self._makers[kind]()
        return self.made[kind]

    async def _task(self) -> str:
        if Kind.WAIT in self.made:
            # The form belongs to the waiting task: name them together.
            return self._waiting.id
        reply = await self._stubs.tasks.StartTask(
            tasks.StartTaskRequest(text=QUIET_TASK, request_id=fresh("start")), metadata=self._meta
        )
        task = await settled_task(self._stubs, self._meta, reply.task.id)
        if task.state in ENDED:
            await end_told(self._stubs, task.id)
        return task.id

    async def _wait(self) -> str:
        self.made[Kind.TASK] = self._waiting.id
        return self._waiting.wait.id

    def the_waiting_task(self) -> str:
        """The request names the waiting task (whose steps it made are
        known: the first opened the shop's page), not a quiet one."""
        self.made.setdefault(Kind.TASK, self._waiting.id)
        return self.made[Kind.TASK]

    async def _login(self) -> str:
        return (await put_login(self._stubs.vault, self._meta)).id

    async def _card(self) -> str:
        return (await put_card(self._stubs.vault, self._meta)).id

    async def _private_entry(self) -> str:
        reply = await self._stubs.vault.PutPrivateEntry(
            claims.PutPrivateEntryRequest(
                task_id=await self.get(Kind.TASK),
                kind=claims.ENTRY_KIND_SECURITY_CODE,
                fields={"security_code": "737"},
            ),
            metadata=self._meta,
        )
        return reply.id

    async def _claim(self) -> str:
        reply = await self._stubs.claims.Claim(
            claims.ClaimRequest(
                operation_id=fresh("op"),
                kind=claims.ENTRY_KIND_SAVED_LOGIN,
                item_id=await self.get(Kind.ITEM),
                origin=ORIGIN,
                task_id=await self.get(Kind.TASK),
                holder=self.holder,
            ),
            metadata=self._meta,
        )
        assert reply.granted, reply.claim
        return reply.claim.id

    async def _account(self) -> str:
        reply = await self._stubs.approvals.ConnectAccount(
            approvals.ConnectAccountRequest(
                account=approvals.Account(
                    app="webhook",
                    label=fresh("hook"),
                    settings={"url": "http://127.0.0.1:9/owner-hook"},
                )
            ),
            metadata=self._meta,
        )
        return reply.account.id

    async def _approval(self) -> str:
        parameters = struct_pb2.Struct()
        parameters.update({"text": "from the owner"})
        reply = await self._stubs.approvals.Propose(
            approvals.ProposeRequest(
                task_id=await self.get(Kind.TASK),
                account_id=await self.get(Kind.ACCOUNT),
                action="post",
                parameters=parameters,
                summary="Post a note",
                request_id=fresh("propose"),
            ),
            metadata=self._meta,
        )
        return reply.approval.id

    async def _payment(self) -> str:
        reply = await self._stubs.payments.CreatePayment(
            payments.CreatePaymentRequest(
                task_id=await self.get(Kind.TASK),
                merchant_origin=ORIGIN,
                amount_minor=1299,
                currency="EUR",
                description="Desk lamp",
                card_item_id=await self.get(Kind.CARD),
                card_label="•••• 1111",
                order_reference=fresh("order"),
                request_id=fresh("pay"),
            ),
            metadata=self._meta,
        )
        return reply.payment.id

    async def _session(self) -> str:
        reply = await self._stubs.browser.OpenSession(
            browser.OpenSessionRequest(task_id=await self.get(Kind.TASK)), metadata=self._meta
        )
        return reply.session_id

    async def close_session(self) -> None:
        """The browser runner holds a few sessions at a time: give it back."""
        if Kind.SESSION in self.made:
            try:
                await self._stubs.browser.CloseSession(
                    browser.CloseSessionRequest(session_id=self.made[Kind.SESSION]),
                    metadata=self._meta,
                )
            except grpc.aio.AioRpcError as error:
                # Closed already, by the call under test.
                assert error.code() == grpc.StatusCode.NOT_FOUND, error

    async def snapshot(self) -> dict[Kind, object]:
        """What the owner sees of each object made: its state, or that it
        is still there."""
        stubs, meta = self._stubs, self._meta
        seen: dict[Kind, object] = {}
        for kind, object_id in self.made.items():
            if kind is Kind.TASK:
                task = (
                    await stubs.tasks.GetTask(
                        tasks.GetTaskRequest(task_id=object_id), metadata=meta
                    )
                ).task
                seen[kind] = (task.state, task.wait.id, task.run)
            elif kind in (Kind.ITEM, Kind.CARD):
                items = (
                    await stubs.vault.ListItems(claims.ListItemsRequest(), metadata=meta)
                ).items
                seen[kind] = [(i.label, i.updated_at.seconds) for i in items if i.id == object_id]
            elif kind is Kind.CLAIM:
                claim = await stubs.claims.GetClaim(
                    claims.GetClaimRequest(claim_id=object_id), metadata=meta
                )
                seen[kind] = (claim.claim.state, claim.claim.check)
            elif kind is Kind.ACCOUNT:
                accounts = (
                    await stubs.approvals.ListAccounts(
                        approvals.ListAccountsRequest(), metadata=meta
                    )
                ).accounts
                seen[kind] = [a.connected for a in accounts if a.id == object_id]
            elif kind is Kind.APPROVAL:
                approval = await stubs.approvals.GetApproval(
                    approvals.GetApprovalRequest(approval_id=object_id), metadata=meta
                )
                seen[kind] = (approval.approval.state, approval.approval.execution_state)
            elif kind is Kind.PAYMENT:
                payment = await stubs.payments.GetPayment(
                    payments.GetPaymentRequest(payment_id=object_id), metadata=meta
                )
                seen[kind] = (payment.payment.state, payment.payment.outcome)
            elif kind is Kind.SESSION:
                listed = await stubs.browser.ListSessions(
                    browser.ListSessionsRequest(task_id=self.made[Kind.TASK]), metadata=meta
                )
                seen[kind] = [s.url for s in listed.sessions if s.session_id == object_id]
        return seen
