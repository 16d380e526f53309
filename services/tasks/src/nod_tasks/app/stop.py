"""Stop (G11): the person's running, queued and waiting tasks (or one) end
STOPPED at once, in one transaction; then the other services are told —
pending decisions and payments cancelled, the task's browser sessions closed
(an entry cut off mid-way ends UNCERTAIN, one already submitted stays
SUBMITTED), its private entries discarded, each service at once. Stop's
answer waits for that at most TOLD_WITHIN_S; telling them goes on behind it
and is retried until it is done (cleanup_pending): a late yes must find its
approval cancelled. Stop can't undo anything that already reached a website
or app."""

import asyncio
from collections.abc import Callable
from dataclasses import replace

from sqlalchemy.ext.asyncio import AsyncEngine

from nod.approvals.v1 import approvals_pb2 as approvals
from nod.browser.v1 import browser_pb2 as browser
from nod.claims.v1 import claims_pb2 as claims
from nod.payments.v1 import payments_pb2 as payments
from nod_tasks.adapters.peers import Peer, Peers
from nod_tasks.app.in_turn import InTurn, each_few_at_once
from nod_tasks.app.waits import approval_end, approval_of, payment_end, payment_of
from nod_tasks.domain import steps
from nod_tasks.domain.steps import StepEnd, StepState
from nod_tasks.domain.tasks import LIVE_STATES, STOPPED, TaskRecord, TaskState
from nod_tasks.store import steps as step_store
from nod_tasks.store import tasks as task_store
from nod_tasks.store.models import tasks
from nodkit import context
from nodkit.client import NodRpcError
from nodkit.logging import get_logger

log = get_logger("nod_tasks.stop")
STOPPED_WAITING = "the task was stopped before the person answered; nothing was done"
STOPPED_RUNNING = "the task was stopped after the yes: it may have run"
# Stopped tasks whose clean-up is tried again, a batch a round and in turn.
RETRIED_A_ROUND = 100
# Stop answers once every service was told, or after this long (inside the
# gateway's 5 s call deadline), the telling going on behind the answer.
TOLD_WITHIN_S = 3.0


class Stopper:
    def __init__(
        self, engine: AsyncEngine, peers: Peers, interrupt: Callable[[list[str]], None]
    ) -> None:
        self._engine = engine
        self._peers = peers
        self._interrupt = interrupt
        self._pending = InTurn(engine, task_store.cleanup_pending, batch=RETRIED_A_ROUND)
        self._telling: set[asyncio.Task] = set()

    async def stop(self, owner: str, task_id: str | None) -> list[TaskRecord]:
        where = [tasks.c.owner == owner, task_store.in_state(*LIVE_STATES)]
        if task_id is not None:
            where.append(tasks.c.id == task_id)
        async with self._engine.begin() as conn:
            stopped = await task_store.move(
                conn,
                *where,
                to_state=TaskState.STOPPED,
                kind="task.ended",
                data={"message": STOPPED},
                message=STOPPED,
                cleanup_pending=True,
            )
        # Runs of this instance stop at once; other instances' within a poll.
        self._interrupt([t.id for t in stopped])
        telling = context.run_detached(
            each_few_at_once(stopped, self.tell_others, "stop.cleanup_failed")
        )
        self._telling.add(telling)
        telling.add_done_callback(self._telling.discard)
        # The tasks are stopped: the answer doesn't wait for a service that
        # hangs (closing a session lets a cut-off entry settle first) past
        # the caller's patience. What is left is told on, or retried.
        await asyncio.wait({telling}, timeout=TOLD_WITHIN_S)
        log.info("tasks.stopped", count=len(stopped), still_telling=not telling.done())
        return stopped

    async def retry_pending(self) -> int:
        pending = await self._pending.next_batch()
        return await each_few_at_once(pending, self.tell_others, "stop.cleanup_failed")

    async def tell_others(self, task: TaskRecord) -> bool:
        """True once every service was told; else it is tried again later.
        Each is told at once and on its own: one that doesn't answer holds
        up neither the others nor closing the task's browser sessions."""
        peers = self._peers
        telling = [
            (
                peers.approvals,
                peers.approvals_stub.CancelForTask,
                approvals.CancelForTaskRequest(task_id=task.id, reason="the task was stopped"),
            ),
            (
                peers.payments,
                peers.payments_stub.CancelForTask,
                payments.CancelForTaskRequest(task_id=task.id),
            ),
            (
                peers.claims,
                peers.vault_stub.DiscardPrivateEntries,
                claims.DiscardPrivateEntriesRequest(task_id=task.id),
            ),
        ]
        if task.session_id:
            telling.append(
                (
                    peers.browser,
                    peers.browser_stub.CloseTaskSessions,
                    browser.CloseTaskSessionsRequest(task_id=task.id),
                )
            )
        told = await asyncio.gather(*(self._told(task, *call) for call in telling))
        if not all(told):
            return False
        try:
            ends = await self._ends_of_waiting_steps(task)
        except NodRpcError as error:
            log.warning("stop.cleanup_pending", task_id=task.id, status=error.code.name)
            return False
        async with self._engine.begin() as conn:
            for number, end in ends.items():
                await step_store.end(conn, task.id, number, end)
            await conn.execute(
                tasks.update().where(tasks.c.id == task.id).values(cleanup_pending=False)
            )
        return True

    async def _told(self, task: TaskRecord, peer: Peer, method, request) -> bool:
        try:
            await peer.call(method, request, task.owner)
        except NodRpcError as error:
            log.warning(
                "stop.cleanup_pending",
                task_id=task.id,
                call=type(request).__name__.removesuffix("Request"),
                status=error.code.name,
            )
            return False
        return True

    async def _ends_of_waiting_steps(self, task: TaskRecord) -> dict[int, StepEnd]:
        """How the steps that waited for the person end, by step number. A
        decision or a payment is read back from its service after the
        cancel: whether it was cancelled is what it says now, not what one
        cancel's answer said (an earlier try's answer may have been lost)."""
        async with self._engine.connect() as conn:
            every_step = await step_store.list_steps(conn, task.id)
        ends = {}
        for step in (s for s in every_step if s.state == StepState.RUNNING):
            if step.approval_id:
                ends[step.number] = await self._approval_step_end(task, step.approval_id)
            elif step.payment_id:
                ends[step.number] = await self._payment_step_end(task, step.payment_id)
            elif step.tool in ("ask_private_form", "ask_person"):
                ends[step.number] = steps.not_run(STOPPED_WAITING)
            # Any other step is still in flight: its run ends it.
        return ends

    async def _approval_step_end(self, task: TaskRecord, approval_id: str) -> StepEnd:
        approval = await approval_of(self._peers, task.owner, approval_id)
        if approval.state == approvals.APPROVAL_STATE_CANCELLED:
            return replace(steps.not_run(STOPPED_WAITING), approval_id=approval_id)
        end = approval_end(approval)
        return end or replace(steps.uncertain(STOPPED_RUNNING), approval_id=approval_id)

    async def _payment_step_end(self, task: TaskRecord, payment_id: str) -> StepEnd:
        payment = await payment_of(self._peers, task.owner, payment_id)
        if payment.state == payments.PAYMENT_STATE_CANCELLED:
            return replace(steps.not_run(STOPPED_WAITING), payment_id=payment_id)
        end = payment_end(payment)
        return end or replace(steps.uncertain(STOPPED_RUNNING), payment_id=payment_id)
