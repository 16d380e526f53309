"""The people's side of the hostile cases, through the services' APIs as
the gateway would call them: each case has a person of its own with a
saved login for site A, a card and a connected webhook app; the person
starts the task, then says yes to every approval and payment and types
the one-time code into every code form, and their password into the
sign-in form nod shows after a saved login did not get through, at once,
as a person who trusts what they are shown would. Anything else they are
asked (a question, a check) they decline by stopping the task."""

import asyncio
import uuid
from dataclasses import dataclass

import grpc
from pydantic import SecretStr

from nod.approvals.v1 import approvals_pb2 as approvals
from nod.approvals.v1 import approvals_pb2_grpc
from nod.browser.v1 import browser_pb2, browser_pb2_grpc
from nod.claims.v1 import claims_pb2 as claims
from nod.claims.v1 import claims_pb2_grpc
from nod.payments.v1 import payments_pb2 as payments
from nod.payments.v1 import payments_pb2_grpc
from nod.tasks.v1 import tasks_pb2 as pb
from nod.tasks.v1 import tasks_pb2_grpc
from nodkit.client import call_metadata
from nodtest.hostile.values import CaseValues

USERNAME = "ada"
ENDED = frozenset(
    {pb.TASK_STATE_DONE, pb.TASK_STATE_FAILED, pb.TASK_STATE_STOPPED, pb.TASK_STATE_INTERRUPTED}
)
POLL_S = 0.1


@dataclass(frozen=True)
class Services:
    """One channel per service, shared by every person."""

    claims: grpc.aio.Channel
    approvals: grpc.aio.Channel
    payments: grpc.aio.Channel
    tasks: grpc.aio.Channel
    browser: grpc.aio.Channel
    token: SecretStr


@dataclass(frozen=True)
class Ended:
    task: pb.Task
    steps: list[pb.Step]
    # What the person did along the way, in words (yes, code typed, stopped).
    answers: list[str]


class Person:
    def __init__(self, services: Services, values: CaseValues) -> None:
        self.name = f"hostile-{values.case}-{uuid.uuid4().hex[:6]}"
        self.meta = call_metadata(services.token, self.name)
        self.values = values
        self.vault = claims_pb2_grpc.VaultServiceStub(services.claims)
        self.approvals = approvals_pb2_grpc.ApprovalsServiceStub(services.approvals)
        self.payments = payments_pb2_grpc.PaymentsServiceStub(services.payments)
        self.tasks = tasks_pb2_grpc.TasksServiceStub(services.tasks)
        self.browser = browser_pb2_grpc.BrowserServiceStub(services.browser)
        self.answers: list[str] = []

    async def save_things(self, site_origin: str, app_url: str) -> None:
        """A saved login for the person's site, a card, the app connected."""
        login = claims.VaultItem(
            kind=claims.ENTRY_KIND_SAVED_LOGIN,
            label="My site",
            origin=site_origin,
            fields={"username": USERNAME, "password": self.values.password},
        )
        card = claims.VaultItem(
            kind=claims.ENTRY_KIND_CARD,
            label="Visa",
            fields={"number": self.values.card, "expiry": "12/29", "holder_name": "Ada Lovelace"},
        )
        for item in (login, card):
            await self.vault.PutItem(claims.PutItemRequest(item=item), metadata=self.meta)
        account = approvals.Account(app="webhook", label="My app", settings={"url": app_url})
        await self.approvals.ConnectAccount(
            approvals.ConnectAccountRequest(account=account), metadata=self.meta
        )

    async def run(self, text: str, timeout_s: float) -> Ended:
        started = await self.tasks.StartTask(pb.StartTaskRequest(text=text), metadata=self.meta)
        task_id = started.task.id
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        answered: set[str] = set()
        stopped = False
        while True:
            task = (
                await self.tasks.GetTask(pb.GetTaskRequest(task_id=task_id), metadata=self.meta)
            ).task
            if task.state in ENDED:
                break
            if loop.time() > deadline and not stopped:
                stopped = True
                await self._stop(task, "the task took too long")
            elif task.state == pb.TASK_STATE_WAITING and task.wait.id not in answered:
                answered.add(task.wait.id)
                try:
                    await self._answer(task)
                except grpc.aio.AioRpcError as error:
                    # The answer was refused: the person gives up.
                    await self._stop(task, f"their answer was refused ({error.details()})")
            await asyncio.sleep(POLL_S)
        events = await self.tasks.ListTaskEvents(
            pb.ListTaskEventsRequest(task_id=task_id, page_size=500), metadata=self.meta
        )
        # A task that ends done keeps its browser session (a Continue goes
        # on in it); the person is gone, so the run closes it for them.
        close = browser_pb2.CloseTaskSessionsRequest(task_id=task_id)
        await self.browser.CloseTaskSessions(close, metadata=self.meta)
        return Ended(task, list(events.steps), self.answers)

    async def _answer(self, task: pb.Task) -> None:
        wait = task.wait
        if wait.kind == pb.WAIT_KIND_PAYMENT:
            self.answers.append("yes to a payment")
            request = payments.ConfirmPaymentRequest(
                payment_id=wait.id, decision=payments.DECISION_YES
            )
            await self.payments.ConfirmPayment(request, metadata=self.meta)
        elif wait.kind == pb.WAIT_KIND_DECISION:
            self.answers.append("yes to an app action")
            decide = approvals.DecideRequest(approval_id=wait.id, decision=approvals.DECISION_YES)
            await self.approvals.Decide(decide, metadata=self.meta)
        elif wait.kind == pb.WAIT_KIND_PRIVATE_FORM:
            await self._fill(task)
        else:
            asked = pb.WaitKind.Name(wait.kind).removeprefix("WAIT_KIND_").lower()
            await self._stop(task, f"asked for {asked}")

    async def _fill(self, task: pb.Task) -> None:
        """The private form: the code typed, or the saved login picked."""
        wait = task.wait
        if wait.form_kind == pb.FORM_KIND_ONE_TIME_CODE:
            self.answers.append(f"code typed for {wait.origin}")
            entry = await self.vault.PutPrivateEntry(
                claims.PutPrivateEntryRequest(
                    task_id=task.id,
                    kind=claims.ENTRY_KIND_ONE_TIME_CODE,
                    fields={"code": self.values.code},
                    # As the gateway does: for the page the task asked on.
                    origin=wait.origin,
                    frame_origin=wait.frame_origin,
                ),
                metadata=self.meta,
            )
            await self._submit(task, entry.id)
        elif wait.form_kind in (pb.FORM_KIND_LOGIN, pb.FORM_KIND_PASSWORD):
            self.answers.append(f"password typed for {wait.origin}")
            entry = await self.vault.PutPrivateEntry(
                claims.PutPrivateEntryRequest(
                    task_id=task.id,
                    kind=claims.ENTRY_KIND_TYPED_PASSWORD,
                    fields={"username": USERNAME, "password": self.values.password},
                    origin=wait.origin,
                    frame_origin=wait.frame_origin,
                ),
                metadata=self.meta,
            )
            await self._submit(task, entry.id)
        else:
            asked = pb.FormKind.Name(wait.form_kind).removeprefix("FORM_KIND_").lower()
            await self._stop(task, f"asked for {asked}")

    async def _submit(self, task: pb.Task, item_id: str) -> None:
        submit = pb.SubmitPrivateFormRequest(task_id=task.id, form_id=task.wait.id, item_id=item_id)
        await self.tasks.SubmitPrivateForm(submit, metadata=self.meta)

    async def _stop(self, task: pb.Task, why: str) -> None:
        self.answers.append(f"stopped: {why}")
        try:
            await self.tasks.Stop(pb.StopRequest(task_id=task.id), metadata=self.meta)
        except grpc.aio.AioRpcError:
            pass  # it ended meanwhile
