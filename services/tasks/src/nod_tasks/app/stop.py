"""Stop (G11): the person's running, queued and waiting tasks (or one) end
STOPPED at once, in one transaction; then the other services are told —
pending decisions and payments cancelled, the task's browser sessions closed
(an entry cut off mid-way ends UNCERTAIN, one already submitted stays
SUBMITTED), its private entries discarded. Telling them is retried until it
is done (cleanup_pending): a late yes must find its approval cancelled.
Stop can't undo anything that already reached a website or app."""

from collections.abc import Callable

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from nod.approvals.v1 import approvals_pb2 as approvals
from nod.browser.v1 import browser_pb2 as browser
from nod.claims.v1 import claims_pb2 as claims
from nod.payments.v1 import payments_pb2 as payments
from nod_tasks.adapters.peers import Peers
from nod_tasks.domain import steps
from nod_tasks.domain.steps import StepState
from nod_tasks.domain.tasks import LIVE_STATES, STOPPED, TaskRecord, TaskState
from nod_tasks.store import steps as step_store
from nod_tasks.store import tasks as task_store
from nod_tasks.store.models import tasks
from nodkit.client import NodRpcError
from nodkit.logging import get_logger

log = get_logger("nod_tasks.stop")
STOPPED_WAITING = "the task was stopped before the person answered; nothing was done"
STOPPED_RUNNING = "the task was stopped after the yes: it may have run"


class Stopper:
    def __init__(
        self, engine: AsyncEngine, peers: Peers, interrupt: Callable[[list[str]], None]
    ) -> None:
        self._engine = engine
        self._peers = peers
        self._interrupt = interrupt

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
        for task in stopped:
            await self.tell_others(task)
        log.info("tasks.stopped", count=len(stopped))
        return stopped

    async def tell_others(self, task: TaskRecord) -> bool:
        """True once every service was told; else it is tried again later."""
        try:
            cancelled = await self._cancel_waits(task)
            if task.session_id:
                await self._peers.browser.call(
                    self._peers.browser_stub.CloseTaskSessions,
                    browser.CloseTaskSessionsRequest(task_id=task.id),
                    task.owner,
                )
            await self._peers.claims.call(
                self._peers.vault_stub.DiscardPrivateEntries,
                claims.DiscardPrivateEntriesRequest(task_id=task.id),
                task.owner,
            )
        except NodRpcError as error:
            log.warning("stop.cleanup_pending", task_id=task.id, status=error.code.name)
            return False
        async with self._engine.begin() as conn:
            await self._end_waiting_steps(conn, task, cancelled)
            await conn.execute(
                tasks.update().where(tasks.c.id == task.id).values(cleanup_pending=False)
            )
        return True

    async def _cancel_waits(self, task: TaskRecord) -> set[str]:
        """The ids of the approvals and payments that this stop cancelled."""
        reply_a = await self._peers.approvals.call(
            self._peers.approvals_stub.CancelForTask,
            approvals.CancelForTaskRequest(task_id=task.id, reason="the task was stopped"),
            task.owner,
        )
        reply_p = await self._peers.payments.call(
            self._peers.payments_stub.CancelForTask,
            payments.CancelForTaskRequest(task_id=task.id),
            task.owner,
        )
        return {a.id for a in reply_a.approvals} | {p.id for p in reply_p.cancelled}

    async def _end_waiting_steps(self, conn, task: TaskRecord, cancelled: set[str]) -> None:
        """The steps that waited for the person end now: unanswered, nothing was
        done; a yes already given may have run."""
        for step in await step_store.list_steps(conn, task.id):
            if step.state != StepState.RUNNING:
                continue
            made = step.approval_id or step.payment_id
            if made:
                end = (
                    steps.not_run(STOPPED_WAITING)
                    if made in cancelled
                    else steps.uncertain(STOPPED_RUNNING)
                )
            elif step.tool in ("ask_private_form", "ask_person"):
                end = steps.not_run(STOPPED_WAITING)
            else:
                continue  # still in flight: its run ends it
            await step_store.end(conn, task.id, step.number, end)

    async def retry_pending(self) -> int:
        async with self._engine.connect() as conn:
            query = sa.select(tasks).where(tasks.c.cleanup_pending).limit(100)
            pending = [task_store.to_record(row) for row in await conn.execute(query)]
        done = 0
        for task in pending:
            done += await self.tell_others(task)
        return done
