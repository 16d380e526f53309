"""Waits on something outside the tasks service: an app action's decision
and execution (approvals), a payment's yes (payments), and a bank's
confirmation of a payment nod submitted (the shop's page, read until it
shows the outcome; nothing is pressed again). Each instance looks at the
tasks waiting on one, a batch per round and in turn, so every one of them
is looked at however many wait; whichever instance sees the answer first
moves the task on (answers.answer_wait is conditional)."""

from datetime import UTC, datetime

from nod_tasks.adapters.peers import Peers
from nod_tasks.app.answers import answer_wait
from nod_tasks.app.in_turn import InTurn, each_few_at_once
from nod_tasks.app.tools.browsing import LOST_SESSION
from nod_tasks.domain import steps
from nod_tasks.domain.checks import PaymentOutcome, payment_outcome
from nod_tasks.domain.results import Paid
from nod_tasks.domain.steps import StepEnd
from nod_tasks.domain.tasks import TaskRecord, WaitKind
from nod_tasks.domain.waits import PAGE_GONE, approval_end, bank_confirmation_end, payment_end
from nod_tasks.store.database import Database
from nodkit.client import NodRpcError
from nodkit.logging import get_logger
from nodkit.notices import Notices, announced_or_timeout

log = get_logger("nod_tasks.waits")
# What the queue's channel says when a task starts waiting on something
# outside (migration 0005).
WAITING = "waiting"
OUTSIDE = [WaitKind.DECISION.value, WaitKind.PAYMENT.value, WaitKind.BANK_CONFIRMATION.value]


class OutsideWaits:
    def __init__(
        self, db: Database, peers: Peers, *, batch: int, instance_id: str, bank_wait_s: float
    ) -> None:
        self._db = db
        self._peers = peers
        self._me = instance_id
        self._bank_wait_s = bank_wait_s
        self._waiting = InTurn(
            db, lambda tx, limit, after: tx.tasks.waiting_for(OUTSIDE, limit, after), batch=batch
        )

    async def settle_round(self) -> int:
        """Looks at the next batch of waiting tasks; how many it moved on."""
        waiting = await self._waiting.next_batch()
        return await each_few_at_once(waiting, self._settle, "waits.not_settled")

    async def run(self, queue: Notices, every_s: float, fallback_s: float) -> None:
        """Rounds until cancelled. While tasks wait, every every_s: their
        answers come from other services, which announce nothing here. With
        none waiting, the next round is when a task starts waiting on any
        instance (announced), or after fallback_s in case that was missed."""
        with queue.listen(WAITING) as announced:
            while True:
                announced.clear()  # before the look: a later wait wakes the sleep below
                try:
                    await self.settle_round()
                    idle = self._waiting.found_none
                except Exception as error:
                    log.error("waits.failed", exc_info=error)
                    idle = False
                await announced_or_timeout(announced, fallback_s if idle else every_s)

    async def _settle(self, task: TaskRecord) -> bool:
        try:
            end = await self._answer_of(task)
        except NodRpcError as error:
            log.warning("waits.unreadable", task_id=task.id, status=error.code.name)
            return False
        if end is None or task.wait is None:
            return False
        async with self._db.transaction() as tx:
            moved = await answer_wait(tx, task, task.wait, actor=self._me, step_end=end)
        return moved is not None

    async def _answer_of(self, task: TaskRecord) -> StepEnd | None:
        wait = task.wait
        assert wait is not None
        if wait.kind == WaitKind.DECISION:
            return approval_end(await self._peers.approvals.get(task.owner, wait.id))
        if wait.kind == WaitKind.BANK_CONFIRMATION:
            return await self._bank_answer(task, wait.id)
        return payment_end(await self._peers.payments.get(task.owner, wait.id))

    async def _bank_answer(self, task: TaskRecord, payment_id: str) -> StepEnd | None:
        """What the shop's page shows now; the outcome recorded on the payment
        once it shows one (or once the wait is over, as unknown)."""
        try:
            page = await self._peers.browser.read_page(task.owner, task.session_id or "")
        except NodRpcError as error:
            if error.reason != LOST_SESSION:
                raise
            end: StepEnd | None = steps.uncertain(PAGE_GONE)
        else:
            waited_s = (datetime.now(UTC) - task.updated_at).total_seconds()
            outcome = payment_outcome(page)
            end = bank_confirmation_end(payment_id, outcome, page, waited_s, self._bank_wait_s)
        if end is not None:
            known = end.result.paid if isinstance(end.result, Paid) else PaymentOutcome.UNKNOWN
            await self._record_outcome(task, payment_id, known)
        return end

    async def _record_outcome(
        self, task: TaskRecord, payment_id: str, outcome: PaymentOutcome
    ) -> None:
        try:
            await self._peers.payments.record_outcome(task.owner, payment_id, outcome)
        except NodRpcError as error:
            if error.may_have_happened:
                raise
            # Refused: recorded already (another instance saw it first).
            log.info("waits.outcome_known", task_id=task.id, payment_id=payment_id)
