"""Waits on something outside the tasks service: an app action's decision
and execution (approvals), a payment's yes (payments). Each instance looks
at the tasks waiting on one, a batch per round and in turn, so every one of
them is looked at however many wait; whichever instance sees the answer
first moves the task on (answers.answer_wait is conditional)."""

from nod_tasks.adapters.peers import Peers
from nod_tasks.app.answers import answer_wait
from nod_tasks.app.in_turn import InTurn, each_few_at_once
from nod_tasks.domain.steps import StepEnd
from nod_tasks.domain.tasks import TaskRecord, WaitKind
from nod_tasks.domain.waits import approval_end, payment_end
from nod_tasks.store.database import Database
from nodkit.client import NodRpcError
from nodkit.logging import get_logger

log = get_logger("nod_tasks.waits")
OUTSIDE = [WaitKind.DECISION.value, WaitKind.PAYMENT.value]


class OutsideWaits:
    def __init__(self, db: Database, peers: Peers, *, batch: int, instance_id: str) -> None:
        self._db = db
        self._peers = peers
        self._me = instance_id
        self._waiting = InTurn(
            db, lambda tx, limit, after: tx.tasks.waiting_for(OUTSIDE, limit, after), batch=batch
        )

    async def settle_round(self) -> int:
        """Looks at the next batch of waiting tasks; how many it moved on."""
        waiting = await self._waiting.next_batch()
        return await each_few_at_once(waiting, self._settle, "waits.not_settled")

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
        return payment_end(await self._peers.payments.get(task.owner, wait.id))
