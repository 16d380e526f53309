"""A task's end, told to the other services (G8, G11, G12).

Whenever a task ends (done, failed, stopped, interrupted) it is marked to
be told, in the same transaction as its end. Then, at once and again until
every part is done, each service hears of it on its own:

- approvals and payments cancel what the task left waiting (a proposal, a
  payment request, and a yes nobody used: a CONFIRMED payment never paid);
- claims discards the task's one-time private entries;
- the task's browser sessions close: a finished task's page holds memory
  and one of the runner's places (an entry cut off mid-way by Stop ends
  UNCERTAIN, one already submitted stays SUBMITTED); a continued task
  opens a new session when it next needs a page. One that ended with a
  step nobody has checked that may have happened keeps its session, with
  the person's sign-in, for a "look for me" (G14) until the browser's idle
  limit closes it (NOD_BROWSER_SESSION_IDLE_S), a Continue's run ends, or
  the person stops it; a stopped task's close at once (Stop interrupts).
  Each person keeps a few such sessions (NOD_TASKS_KEPT_SESSIONS_PER_PERSON):
  a newer one closes the oldest, so kept sessions can't fill the runner;
- the steps that waited for the person end from what approvals or payments
  say now, read back after the cancel;
- a card entry cut off before it recorded its end (Stop, a crash) settles
  its payment from its claim: SUBMITTED if the claim says so, else
  UNCERTAIN; never left RUNNING.

A continued task is not run again until its last end has been told, so the
telling can't cancel what its next run makes. Replicas share the ended
tasks: one live instance tells a task at a time (it takes the telling on
the task's row first), so a second telling can't begin with a look at the
task older than the first one's end, and end what the next run waits for.
"""

import asyncio

from nod_tasks.adapters.peers import Peers
from nod_tasks.app.in_turn import InTurn, each_few_at_once
from nod_tasks.domain import orders, steps, tools, waits
from nod_tasks.domain.checks import PaymentOutcome
from nod_tasks.domain.outside import ClaimState, Entry, EntryKind, PaymentState
from nod_tasks.domain.reasons import Reason
from nod_tasks.domain.steps import StepEnd, StepRecord, StepState
from nod_tasks.domain.tasks import TaskRecord, TaskState
from nod_tasks.store.database import Database
from nod_tasks.store.tasks import Telling
from nodkit import context
from nodkit.client import NodRpcError
from nodkit.logging import get_logger
from nodkit.notices import Notices, first_announced

log = get_logger("nod_tasks.endings")
# What the queue's channel says when a task's end is to be told (migration 0005).
TO_TELL = "to_tell"
ENDED = "the task ended"
STOPPED = "the task was stopped"
CUT_OFF = "the card entry was cut off before its end was recorded"


class Endings:
    def __init__(
        self, db: Database, peers: Peers, *, batch: int, instance_id: str, kept_sessions: int
    ) -> None:
        self._db = db
        self._peers = peers
        self._instance_id = instance_id
        self._kept_sessions = kept_sessions
        self._to_tell = InTurn(
            db, lambda tx, limit, after: tx.tasks.to_tell(limit, after), batch=batch
        )
        self._kicked = asyncio.Event()
        self._telling: set[asyncio.Task] = set()
        self._telling_now: dict[str, asyncio.Future[bool]] = {}  # by task id

    def kick(self) -> None:
        """A task just ended: tell now rather than at the next round."""
        self._kicked.set()

    async def run(self, queue: Notices, retry_s: float, fallback_s: float) -> None:
        """Rounds until cancelled: one at once (what an earlier life left),
        then at once when kicked (a task ended here); within retry_s while
        a round left some untold, or after an end on any instance is
        announced (its own instance tells it at once: this one looks in case
        it can't); else every fallback_s, in case a notice was missed."""
        with queue.listen(TO_TELL) as announced:
            while True:
                self._kicked.clear()
                announced.clear()  # before the look: a later end wakes the sleep below
                try:
                    untold = await self.round()
                except Exception as error:
                    log.error("endings.round_failed", exc_info=error)
                    untold = True
                if not untold:
                    woke = await first_announced([self._kicked, announced], fallback_s)
                    if woke is None or woke is self._kicked:
                        continue
                await first_announced([self._kicked], retry_s)

    async def round(self) -> bool:
        """The next batch told; whether any ended task is still to be told
        (one not told this time, or a batch after this one)."""
        pending = await self._to_tell.next_batch()
        told = await each_few_at_once(pending, self.tell, "endings.not_told")
        return told < len(pending) or self._to_tell.more_after

    def tell_detached(self, ended: list[TaskRecord]) -> asyncio.Task:
        """Telling that goes on after the caller's answer (Stop's), in its context."""
        telling = context.run_detached(each_few_at_once(ended, self.tell, "endings.not_told"))
        self._telling.add(telling)
        telling.add_done_callback(self._telling.discard)
        return telling

    async def tell(self, task: TaskRecord) -> bool:
        """True once every service was told; else it is tried again later.
        A Stop's telling and a round's may both pick a task: one tells it
        at a time here, and none once it was told (the record read for the
        round may be older than a Continue whose run has begun, and its
        cancels would then reach what that run made)."""
        if (going := self._telling_now.get(task.id)) is not None:
            return await asyncio.shield(going)  # the other caller's, to its end
        going = asyncio.ensure_future(self._tell_unless_told(task))
        self._telling_now[task.id] = going
        try:
            return await going
        finally:
            del self._telling_now[task.id]

    async def _tell_unless_told(self, task: TaskRecord) -> bool:
        async with self._db.transaction() as tx:
            telling = await tx.tasks.take_telling(task.id, self._instance_id)
        if telling != Telling.TAKEN:
            # Another instance's telling is looked at again in a later round.
            return telling == Telling.TOLD
        keep_session = task.state != TaskState.STOPPED and await self._may_have_happened(task)
        parts = self._parts(task, keep_session=keep_session)
        told = await asyncio.gather(*(self._told(task, part) for part in parts))
        if not all(told):
            return False
        try:
            async with self._db.reads() as tx:
                every_step = await tx.steps.of_task(task.id)
            ends = await self._ends_of_waiting_steps(task, every_step)
            for step in every_step:
                cut_off = step.state in (StepState.RUNNING, StepState.UNCERTAIN)
                if cut_off and tools.is_card_entry(step):
                    if not await self._settle_payment(task, step):
                        return False
            for order in orders.open_orders(every_step):
                if not await self._settle_open_order(task, order):
                    return False
        except NodRpcError as error:
            log.warning("endings.pending", task_id=task.id, status=error.code.name)
            return False
        async with self._db.transaction() as tx:
            if not await tx.tasks.told(task.id, self._instance_id):
                # Taken over (this instance's lease lapsed meanwhile): the
                # steps are the new teller's to end, from a newer look.
                log.warning("endings.taken_over", task_id=task.id)
                return False
            for step, end in ends:
                await tx.steps.end(step, end)
        log.info("task.end_told", task_id=task.id, state=task.state.value)
        if keep_session:
            await self._close_kept_beyond_cap(task.owner)
        return True

    async def _close_kept_beyond_cap(self, owner: str) -> None:
        """The person's ended tasks keeping a session for a look, past the
        newest NOD_TASKS_KEPT_SESSIONS_PER_PERSON: each one's session is let
        go in its row first (only while the task is still ended, so a
        Continue that began meanwhile keeps it), then closed on its replica.
        A close that fails is left to the browser's idle limit."""
        async with self._db.reads() as tx:
            kept = await tx.tasks.kept_sessions(owner)
        for task_id, session_id in kept[self._kept_sessions :]:
            async with self._db.transaction() as tx:
                if not await tx.tasks.let_go_of_session(task_id, session_id):
                    continue
            try:
                await self._peers.browser.close_session(owner, session_id)
            except NodRpcError as error:
                status = error.code.name
                log.warning("endings.kept_session_not_closed", task_id=task_id, status=status)
                continue
            log.info("endings.kept_session_closed", task_id=task_id)

    async def _may_have_happened(self, task: TaskRecord) -> bool:
        """A step of it may have happened and nobody has checked yet."""
        async with self._db.reads() as tx:
            every_step = await tx.steps.of_task(task.id)
        return any(
            step.state == StepState.UNCERTAIN and step.resolution is None for step in every_step
        )

    def _parts(
        self, task: TaskRecord, *, keep_session: bool
    ) -> list[tuple[str, "asyncio.Future[None]"]]:
        peers, owner = self._peers, task.owner
        why = STOPPED if task.state == TaskState.STOPPED else ENDED
        parts = [
            ("approvals", peers.approvals.cancel_for_task(owner, task.id, why)),
            ("payments", peers.payments.cancel_for_task(owner, task.id, why)),
            ("claims", peers.claims.discard_private_entries(owner, task.id)),
        ]
        if task.session_id and not keep_session:
            parts.append(("browser", peers.browser.close_task_sessions(owner, task.id)))
        return [(name, asyncio.ensure_future(call)) for name, call in parts]

    async def _told(self, task: TaskRecord, part: tuple[str, "asyncio.Future[None]"]) -> bool:
        service, call = part
        try:
            await call
        except NodRpcError as error:
            log.warning("endings.pending", task_id=task.id, service=service, status=error.code.name)
            return False
        return True

    async def _ends_of_waiting_steps(
        self, task: TaskRecord, every_step: list[StepRecord]
    ) -> list[tuple[StepRecord, StepEnd]]:
        """The steps that waited for the person (no instance runs them),
        ended from what their service says now. Steps still in flight are
        ended by their run, or by their instance's restart or sweep."""
        ends = []
        for step in every_step:
            if step.state != StepState.RUNNING or step.runner_instance is not None:
                continue
            if step.approval_id:
                approval = await self._peers.approvals.get(task.owner, step.approval_id)
                ends.append((step, waits.approval_end_after_stop(approval)))
            elif tools.is_card_entry(step) or tools.places_order(step):
                # Submitted; its bank was asked to confirm it: it may be paid.
                ends.append((step, steps.uncertain(waits.STOPPED_AT_THE_BANK)))
            elif step.payment_id:
                payment = await self._peers.payments.get(task.owner, step.payment_id)
                ends.append((step, waits.payment_end_after_stop(payment)))
            else:
                ends.append((step, steps.not_run(waits.STOPPED_WAITING, code=Reason.STOPPED)))
        return ends

    async def _settle_payment(self, task: TaskRecord, step: StepRecord) -> bool:
        """A card entry whose payment is still RUNNING: settled from its
        claim. False while the entry itself is still under way."""
        assert step.payment_id is not None
        if step.state == StepState.RUNNING and step.runner_instance is not None:
            return False  # in flight: its run (or its instance's restart) ends it first
        payments, owner = self._peers.payments, task.owner
        payment = await payments.get(owner, step.payment_id)
        if payment.state != PaymentState.RUNNING:
            return True
        companion = ""
        if form_id := str(step.arguments.get("security_code_form_id", "")):
            form = task.forms.get(form_id)
            companion = form.item_id if form is not None else ""
        entry = Entry(
            EntryKind.CARD, payment.card_item_id, {}, "", payment.card_operation_id, companion
        )
        claim = await self._peers.claims.find_claim(owner, task.id, entry)
        if claim is not None and claim.state == ClaimState.RUNNING:
            return False
        if claim is not None and claim.state == ClaimState.SUBMITTED:
            await payments.record_submitted(owner, payment.id, claim.id)
            # Nobody read the page after it: the outcome is not known.
            await payments.record_outcome(owner, payment.id, PaymentOutcome.UNKNOWN)
        else:
            reason = step.reason or CUT_OFF
            await payments.record_uncertain(owner, payment.id, claim.id if claim else None, reason)
        log.warning("payment.cut_off_settled", task_id=task.id, payment_id=payment.id)
        return True

    async def _settle_open_order(self, task: TaskRecord, order: orders.OpenOrder) -> bool:
        """A payment whose card awaited its order on a review page: still
        RUNNING at the task's end, it ends UNCERTAIN (the payments service
        can't cancel a started card entry, and the shop holds the card).
        False while its confirm_payment step is still under way."""
        placing = order.placing
        if placing is not None and placing.state == StepState.RUNNING and placing.runner_instance:
            return False  # in flight: its run (or its instance's restart) ends it first
        payments, owner = self._peers.payments, task.owner
        payment = await payments.get(owner, order.payment_id)
        if payment.state != PaymentState.RUNNING:
            return True
        reason = orders.CUT_OFF if placing is not None else orders.NEVER_PLACED
        await payments.record_uncertain(owner, payment.id, order.claim_id, reason)
        log.warning("payment.open_order_settled", task_id=task.id, payment_id=payment.id)
        return True
