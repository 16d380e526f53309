"""Decide: the person's yes or no (G7).

One transaction records the decision with a conditional update (pending and
unexpired only) and, for a yes, inserts the single execution row. Of any
number of concurrent decisions exactly one matches; the others are answered
with the approval as it is, and run nothing.
"""

import asyncio

from sqlalchemy.ext.asyncio import AsyncEngine

from nod_approvals import endings, executions_repository, repository
from nod_approvals.changes import ChangeFeed
from nod_approvals.domain import (
    DECIDED,
    ApprovalRecord,
    Decision,
    answer_to_late_decision,
    person,
)
from nod_approvals.execution import Executor
from nod_approvals.sending import Execution
from nodkit import validation
from nodkit.errors import NotFound, Unavailable
from nodkit.logging import get_logger

log = get_logger("nod_approvals.decisions")


class Decisions:
    def __init__(self, engine: AsyncEngine, executor: Executor, feed: ChangeFeed) -> None:
        self._engine = engine
        self._executor = executor
        self._feed = feed

    async def decide(self, owner: str, approval_id: str, decision: Decision) -> ApprovalRecord:
        approval_id = validation.uuid_id("approval_id", approval_id)
        # A caller that gives up mid-way must not leave a recorded yes
        # without its execution: the decision runs to its end regardless.
        deciding = asyncio.ensure_future(self._decide(owner, approval_id, decision))
        deciding.add_done_callback(_retrieve_outcome)
        return await asyncio.shield(deciding)

    async def _decide(self, owner: str, approval_id: str, decision: Decision) -> ApprovalRecord:
        with self._executor.reserve() as execution_id:
            won, record = await self._record(owner, approval_id, decision, execution_id)
            log.info("approval.decided", approval_id=approval_id, decision=decision.value, won=won)
            if not won:
                return answer_to_late_decision(record, decision)
            if decision == Decision.YES:
                # The reply comes once the execution has ended.
                await self._executor.run(Execution(execution_id, owner, record))
                record = await self._reread(owner, approval_id)
        return record

    async def _record(
        self, owner: str, approval_id: str, decision: Decision, execution_id: str
    ) -> tuple[bool, ApprovalRecord]:
        target = DECIDED[decision]
        async with self._engine.begin() as conn:
            won = await repository.decide(conn, owner, approval_id, target)
            if won:
                await repository.add_event(
                    conn,
                    approval_id,
                    subject="approval",
                    actor=person(owner),
                    from_state="pending",
                    to_state=target.value,
                )
                if decision == Decision.YES:
                    await self._start_execution(conn, approval_id, execution_id)
            else:
                # Unmatched while still pending means it ran out of time: say so for good.
                await endings.expire_if_due(conn, owner, approval_id, actor=person(owner))
            record = await repository.get_approval(conn, owner, approval_id)
        if record is None:
            raise NotFound("no such approval", reason="APPROVAL_NOT_FOUND")
        self._feed.notify(approval_id)
        return won, record

    async def _start_execution(self, conn, approval_id: str, execution_id: str) -> None:
        instance_id = self._executor.instance_id
        if not await executions_repository.insert_running(
            conn, execution_id, approval_id, instance_id
        ):
            # Raising rolls the yes back too: the approval stays pending.
            raise Unavailable(
                "this instance can't run actions right now; nothing was decided",
                reason="INSTANCE_LEASE_LAPSED",
            )
        await repository.add_event(
            conn,
            approval_id,
            subject="execution",
            actor=f"instance:{instance_id}",
            from_state=None,
            to_state="running",
        )

    async def _reread(self, owner: str, approval_id: str) -> ApprovalRecord:
        async with self._engine.connect() as conn:
            return await repository.get_approval(conn, owner, approval_id)


def _retrieve_outcome(task: asyncio.Task) -> None:
    """Nobody may be waiting any more; an error was answered or logged."""
    if not task.cancelled():
        task.exception()
