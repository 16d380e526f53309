"""The soak's operations, each the way a client of nod makes it: a claim and
its MarkSubmitted, a saved login entered on the demo shop, an app action
proposed and said yes to, a card payment on the demo shop, and the demo
shop's desk lamp bought by a task (the tasks service's scripted planner),
the person answering it as the web page lets them. A call that ends
without a definite answer (UNAVAILABLE, DEADLINE_EXCEEDED: a service was
killed under it, a database failed over) is resent unchanged, as a client
does after a lost answer: once, or for as long as the Operations are told
(a failover takes seconds). Every resend must find the first record.

Each operation returns its Outcome; what the outside world received is
counted by the demo shop and demo app, and checked in mixed_load."""

import asyncio
import random
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TypeVar

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
from nod_tasks.adapters.models.scripted import DEMO_TASKS
from nodkit.client import open_channel
from nodtest.browser import control_ref, enter_request, field_ref
from nodtest.claims import CANARY_CARD

from .system import SHOP_USERNAME, System

MAY_HAVE_HAPPENED = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED}
CALL_TIMEOUT_S = 20.0
SECURITY_CODE = "737"
T = TypeVar("T")
BrowserStub = browser_pb2_grpc.BrowserServiceStub


class Outcome(StrEnum):
    OK = "ok"
    FAILED = "failed"  # a definite refusal: nothing happened
    UNKNOWN = "unknown"  # may have happened: left for the records to tell


class Unknown(Exception):
    """The call, and its one resend, ended without a definite answer."""


@dataclass
class Person:
    name: str
    meta: tuple
    login_id: str
    card_id: str
    account_id: str


# How often a cut-off payment's end is sent (2 s apart) before giving up.
SETTLE_TRIES = 30
# How long a purchase by a task is followed before it is stopped.
PURCHASE_S = 120.0
TASK_ENDS = {
    tasks.TASK_STATE_DONE,
    tasks.TASK_STATE_FAILED,
    tasks.TASK_STATE_STOPPED,
    tasks.TASK_STATE_INTERRUPTED,
}


class Operations:
    def __init__(
        self,
        system: System,
        resend_window_s: float = 1.0,
        rng: random.Random | None = None,
    ) -> None:
        self.system = system
        self.rng = rng or random.Random()  # which browser replica each session goes to
        self.resend_window_s = resend_window_s
        # Calls whose answer was lost (a replica or the database went away
        # under them): each "may have happened", and was resent unchanged.
        self.answers_lost = 0
        self.claims = claims_pb2_grpc.ClaimsServiceStub(open_channel(system.address("claims")))
        self.vault = claims_pb2_grpc.VaultServiceStub(open_channel(system.address("claims")))
        self.approvals = approvals_pb2_grpc.ApprovalsServiceStub(
            open_channel(system.address("approvals"))
        )
        self.payments = payments_pb2_grpc.PaymentsServiceStub(
            open_channel(system.address("payments"))
        )
        # A session lives in one runner's Chromium: each session's calls go
        # to the replica that opened it, one picked at random per session.
        self.browsers = [
            browser_pb2_grpc.BrowserServiceStub(open_channel(address))
            for address in system.addresses("browser")
        ]
        self.tasks = tasks_pb2_grpc.TasksServiceStub(open_channel(system.address("tasks")))
        self.grants: dict[str, int] = {}

    async def person(self) -> Person:
        name = f"soak-{uuid.uuid4().hex[:10]}"
        meta = self.system.meta(name)
        login = await self.vault.PutItem(
            claims.PutItemRequest(
                item=claims.VaultItem(
                    kind=claims.ENTRY_KIND_SAVED_LOGIN,
                    label="Demo shop",
                    origin=self.system.shop.url,
                    fields={"username": SHOP_USERNAME, "password": self.system.password},
                )
            ),
            metadata=meta,
        )
        card = await self.vault.PutItem(
            claims.PutItemRequest(
                item=claims.VaultItem(
                    kind=claims.ENTRY_KIND_CARD,
                    label="Visa",
                    fields={"number": CANARY_CARD, "expiry": "12/29", "holder_name": "Ada"},
                )
            ),
            metadata=meta,
        )
        account = await self.approvals.ConnectAccount(
            approvals.ConnectAccountRequest(
                account=approvals.Account(
                    app="webhook",
                    label="Demo app",
                    settings={"url": f"{self.system.app.url}/hooks/soak"},
                )
            ),
            metadata=meta,
        )
        return Person(name, meta, login.item.id, card.item.id, account.account.id)

    async def call(self, make: Callable[[], Awaitable[T]]) -> T:
        """One call, resent unchanged after an answer that was lost, a
        second apart (a killed service is starting again meanwhile), for
        resend_window_s: by default once."""
        gave_up_at = None
        while True:
            try:
                return await make()
            except grpc.aio.AioRpcError as error:
                if error.code() not in MAY_HAVE_HAPPENED:
                    raise
                self.answers_lost += 1
                now = time.monotonic()
                gave_up_at = gave_up_at or now + self.resend_window_s
                if now >= gave_up_at:
                    raise Unknown(error.code().name) from None
            await asyncio.sleep(1.0)

    def _granted(self, operation_id: str, reply: claims.ClaimResponse) -> None:
        if reply.granted and reply.secret_fields:
            self.grants[operation_id] = self.grants.get(operation_id, 0) + 1

    async def claim(self, person: Person) -> Outcome:
        operation_id = f"soak-claim-{uuid.uuid4().hex}"
        request = claims.ClaimRequest(
            operation_id=operation_id,
            kind=claims.ENTRY_KIND_SAVED_LOGIN,
            item_id=person.login_id,
            origin=self.system.shop.url,
            task_id="soak-claims",
            holder="soak-caller",
        )
        # A holder with a live lease, as a runner keeps one (a killed
        # claims service forgets nothing: the lease is a row).
        renew = claims.RenewHolderRequest(holder="soak-caller")
        await self.call(
            lambda: self.claims.RenewHolder(renew, metadata=person.meta, timeout=CALL_TIMEOUT_S)
        )
        reply = await self.call(
            lambda: self.claims.Claim(request, metadata=person.meta, timeout=CALL_TIMEOUT_S)
        )
        self._granted(operation_id, reply)
        if not reply.granted:
            return Outcome.FAILED
        done = claims.MarkSubmittedRequest(claim_id=reply.claim.id, holder="soak-caller")
        await self.call(
            lambda: self.claims.MarkSubmitted(done, metadata=person.meta, timeout=CALL_TIMEOUT_S)
        )
        return Outcome.OK

    async def _session(self, person: Person, task_id: str, path: str):
        runner = self.rng.choice(self.browsers)
        opened = await runner.OpenSession(
            browser.OpenSessionRequest(task_id=task_id), metadata=person.meta, timeout=30
        )
        try:
            page = await runner.Navigate(
                browser.NavigateRequest(
                    session_id=opened.session_id, url=f"{self.system.shop.url}{path}"
                ),
                metadata=person.meta,
                timeout=30,
            )
        except grpc.aio.AioRpcError:
            # Closed, or the runner's session limit fills with pages nobody uses.
            await self._close(runner, person, opened.session_id)
            raise
        return runner, opened.session_id, page.page

    async def _close(self, runner: BrowserStub, person: Person, session_id: str) -> None:
        try:
            await runner.CloseSession(
                browser.CloseSessionRequest(session_id=session_id), metadata=person.meta, timeout=10
            )
        except grpc.aio.AioRpcError:
            pass  # the runner was killed: its sessions went with it

    async def entry(self, person: Person) -> Outcome:
        """A saved login typed into the shop's sign-in form."""
        runner, session_id, page = await self._session(person, "soak-entries", "/login")
        try:
            request = enter_request(
                session_id,
                person.login_id,
                claims.ENTRY_KIND_SAVED_LOGIN,
                {"username": field_ref(page, "username"), "password": field_ref(page, "password")},
                control_ref(page, "Sign in"),
            )
            reply = await self.call(
                lambda: runner.EnterPrivate(request, metadata=person.meta, timeout=40)
            )
            return Outcome.OK if reply.entered else Outcome.FAILED
        finally:
            await self._close(runner, person, session_id)

    async def decision(self, person: Person) -> Outcome:
        """An app action proposed, said yes to, and waited for."""
        parameters = struct_pb2.Struct()
        parameters.update({"order": uuid.uuid4().hex[:8]})
        proposal = approvals.ProposeRequest(
            task_id=f"soak-task-{uuid.uuid4().hex[:8]}",
            account_id=person.account_id,
            action="post",
            parameters=parameters,
            summary="Tell the demo app",
            request_id=f"soak-{uuid.uuid4().hex}",
        )
        proposed = await self.call(
            lambda: self.approvals.Propose(proposal, metadata=person.meta, timeout=CALL_TIMEOUT_S)
        )
        yes = approvals.DecideRequest(
            approval_id=proposed.approval.id, decision=approvals.DECISION_YES
        )
        await self.call(
            lambda: self.approvals.Decide(yes, metadata=person.meta, timeout=CALL_TIMEOUT_S)
        )
        return Outcome.OK

    async def payment(self, person: Person) -> Outcome:
        """A card payment: the yes, the card entered under its claim, the
        outcome read from the shop's page."""
        task_id = f"soak-pay-{uuid.uuid4().hex[:8]}"
        code = await self.call(
            lambda: self.vault.PutPrivateEntry(
                claims.PutPrivateEntryRequest(
                    task_id=task_id,
                    kind=claims.ENTRY_KIND_SECURITY_CODE,
                    fields={"security_code": SECURITY_CODE},
                ),
                metadata=person.meta,
                timeout=CALL_TIMEOUT_S,
            )
        )
        create = self.create_payment_request(person, task_id)
        created = await self.call(
            lambda: self.payments.CreatePayment(create, metadata=person.meta, timeout=20)
        )
        payment_id = created.payment.id
        yes = payments.ConfirmPaymentRequest(payment_id=payment_id, decision=payments.DECISION_YES)
        await self.call(lambda: self.payments.ConfirmPayment(yes, metadata=person.meta, timeout=20))
        start = payments.StartCardEntryRequest(payment_id=payment_id)
        try:
            started = await self.call(
                lambda: self.payments.StartCardEntry(start, metadata=person.meta, timeout=20)
            )
            outcome = await self._enter_card(person, payment_id, started, code.id, task_id)
        except (Unknown, grpc.aio.AioRpcError):
            # As the tasks service does: an entry that may have started and
            # ended without a definite answer is recorded UNCERTAIN, never
            # tried again.
            await self._settle(person, payment_id, "the soak's card entry ended without an answer")
            return Outcome.UNKNOWN
        if outcome == Outcome.FAILED:
            # Started, so never back to confirmed: the claim was not granted.
            await self._settle(person, payment_id, "the card's claim was not granted")
        return outcome

    def create_payment_request(self, person: Person, task_id: str) -> payments.CreatePaymentRequest:
        """The desk lamp on the demo shop, on the person's card: one order
        per task, as the tasks service asks for it at its pay step."""
        return payments.CreatePaymentRequest(
            request_id=f"{task_id}:step-1",
            task_id=task_id,
            merchant_origin=self.system.shop.url,
            amount_minor=2500,
            currency="EUR",
            description="Desk lamp",
            card_item_id=person.card_id,
            card_label="Visa",
        )

    async def _settle(self, person: Person, payment_id: str, reason: str) -> None:
        """RecordUncertain, sent again until answered (as the tasks service
        settles a cut-off pay step when the task's end is told): a payment
        whose caller gave up after one resend stayed RUNNING until
        payments' max_running_s (15 min), past the soak's settling."""
        uncertain = payments.RecordUncertainRequest(payment_id=payment_id, reason=reason)
        for _ in range(SETTLE_TRIES):
            try:
                await self.payments.RecordUncertain(uncertain, metadata=person.meta, timeout=20)
                return
            except grpc.aio.AioRpcError as error:
                if error.code() not in MAY_HAVE_HAPPENED:
                    return  # refused: it has its end already
            await asyncio.sleep(2.0)

    async def _enter_card(self, person, payment_id, started, code_id, task_id) -> Outcome:
        runner, session_id, page = await self._session(person, task_id, "/checkout")
        try:
            request = enter_request(
                session_id,
                person.card_id,
                claims.ENTRY_KIND_CARD,
                {
                    "number": field_ref(page, "card_number"),
                    "expiry": field_ref(page, "expiry"),
                    "security_code": field_ref(page, "cvc"),
                    "holder_name": field_ref(page, "holder"),
                },
                control_ref(page, "Pay"),
                operation_id=started.card_operation_id,
                companion_entry_id=code_id,
            )
            entered = await self.call(
                lambda: runner.EnterPrivate(request, metadata=person.meta, timeout=40)
            )
        finally:
            await self._close(runner, person, session_id)
        if not entered.entered:
            return Outcome.FAILED
        submitted = payments.RecordSubmittedRequest(
            payment_id=payment_id, claim_id=entered.claim.id
        )
        await self.call(
            lambda: self.payments.RecordSubmitted(submitted, metadata=person.meta, timeout=20)
        )
        return Outcome.OK

    async def purchase(self, person: Person) -> Outcome:
        """The desk lamp bought by a task: the person says yes to the payment
        and types the security code when the task asks, and says Continue
        once if a restart interrupted it (a person told "check what
        happened, or say continue" would). DONE is OK; anything else that
        ends it is FAILED, and a task still going after PURCHASE_S is
        stopped and UNKNOWN."""
        start = tasks.StartTaskRequest(text=DEMO_TASKS["buy"], request_id=uuid.uuid4().hex)
        task = (
            await self.call(
                lambda: self.tasks.StartTask(start, metadata=person.meta, timeout=CALL_TIMEOUT_S)
            )
        ).task
        answered: set[str] = set()
        continued_run = 0  # the run a Continue went on from
        give_up_at = time.monotonic() + PURCHASE_S
        while time.monotonic() < give_up_at:
            task = await self._task(person, task.id)
            if task.state == tasks.TASK_STATE_INTERRUPTED and not continued_run:
                again = tasks.ContinueRequest(
                    task_id=task.id, text="continue", request_id=uuid.uuid4().hex
                )
                await self.call(
                    lambda request=again: self.tasks.Continue(
                        request, metadata=person.meta, timeout=CALL_TIMEOUT_S
                    )
                )
                continued_run = task.run
            elif task.state in TASK_ENDS and task.run != continued_run:
                return Outcome.OK if task.state == tasks.TASK_STATE_DONE else Outcome.FAILED
            elif task.state == tasks.TASK_STATE_WAITING and task.wait.id not in answered:
                await self._answer(person, task)
                answered.add(task.wait.id)
            await asyncio.sleep(0.3)
        stop = tasks.StopRequest(task_id=task.id)
        await self.call(lambda: self.tasks.Stop(stop, metadata=person.meta, timeout=CALL_TIMEOUT_S))
        return Outcome.UNKNOWN

    async def _task(self, person: Person, task_id: str) -> tasks.Task:
        get = tasks.GetTaskRequest(task_id=task_id)
        reply = await self.call(
            lambda: self.tasks.GetTask(get, metadata=person.meta, timeout=CALL_TIMEOUT_S)
        )
        return reply.task

    async def _answer(self, person: Person, task: tasks.Task) -> None:
        """What the web page sends for what the task waits on: the yes to
        the payment, or the security code, straight to the vault, and only
        its id to the task."""
        if task.wait.kind == tasks.WAIT_KIND_PAYMENT:
            yes = payments.ConfirmPaymentRequest(
                payment_id=task.wait.id, decision=payments.DECISION_YES
            )
            await self.call(
                lambda: self.payments.ConfirmPayment(yes, metadata=person.meta, timeout=20)
            )
        elif task.wait.form_kind == tasks.FORM_KIND_SECURITY_CODE:
            code = claims.PutPrivateEntryRequest(
                task_id=task.id,
                kind=claims.ENTRY_KIND_SECURITY_CODE,
                fields={"security_code": SECURITY_CODE},
            )
            entry = await self.call(
                lambda: self.vault.PutPrivateEntry(code, metadata=person.meta, timeout=20)
            )
            form = tasks.SubmitPrivateFormRequest(
                task_id=task.id, form_id=task.wait.id, item_id=entry.id
            )
            await self.call(
                lambda: self.tasks.SubmitPrivateForm(form, metadata=person.meta, timeout=20)
            )
