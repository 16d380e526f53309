"""Decide: the person's yes or no (G7).

One transaction records the decision with a conditional update (pending and
unexpired only; for a yes not confirmed as such, no possible duplicate) and,
for a yes, inserts the single execution row. Of any number of concurrent
decisions exactly one matches; the others are answered with the approval as
it is, and run nothing.
"""

import asyncio

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from nod_approvals.app.executor import Executor
from nod_approvals.app.sending import Execution
from nod_approvals.domain.approvals import (
    DECIDED,
    ApprovalRecord,
    Decision,
    answer_to_late_decision,
    instance,
    person,
    unmarked_only,
)
from nod_approvals.store import approvals as repo
from nod_approvals.store import executions as executions_repo
from nodkit import context, validation
from nodkit.errors import Unavailable
from nodkit.logging import get_logger

log = get_logger("nod_approvals.decisions")


class Decisions:
    def __init__(self, engine: AsyncEngine, executor: Executor) -> None:
        self._engine = engine
        self._executor = executor

    async def decide(
        self, owner: str, approval_id: str, decision: Decision, *, confirmed_duplicate: bool
    ) -> ApprovalRecord:
        approval_id = validation.uuid_id("approval_id", approval_id)
        unmarked = unmarked_only(decision, confirmed_duplicate)
        # A caller that gives up mid-way must not leave a recorded yes
        # without its execution: the decision runs to its end regardless.
        deciding = context.run_detached(self._decide(owner, approval_id, decision, unmarked))
        deciding.add_done_callback(_retrieve_outcome)
        return await asyncio.shield(deciding)

    async def _decide(
        self, owner: str, approval_id: str, decision: Decision, unmarked: bool
    ) -> ApprovalRecord:
        with self._executor.reserve() as execution_id:
            try:
                won, record = await self._record(
                    owner, approval_id, decision, execution_id, unmarked
                )
            except BaseException:
                # The yes and its execution row may have committed with only
                # the answer lost: this instance will never run that row, so
                # it ends UNCERTAIN (nothing sent) as soon as the sweeper sees it.
                if decision == Decision.YES:
                    self._executor.abandon(execution_id)
                raise
            log.info("approval.decided", approval_id=approval_id, decision=decision.value, won=won)
            if not won:
                return answer_to_late_decision(record, decision)
            if decision == Decision.YES:
                # The reply comes once the execution has ended.
                await self._executor.run(Execution(execution_id, owner, record))
                async with self._engine.connect() as conn:
                    record = await repo.get_approval(conn, owner, approval_id)
        return record

    async def _record(
        self,
        owner: str,
        approval_id: str,
        decision: Decision,
        execution_id: str,
        unmarked: bool,
    ) -> tuple[bool, ApprovalRecord]:
        actor = person(owner)
        async with self._engine.begin() as conn:
            won = await repo.decide(
                conn,
                owner,
                approval_id,
                DECIDED[decision],
                actor=actor,
                unmarked_only=unmarked,
            )
            if won and decision == Decision.YES:
                await self._start_execution(conn, approval_id, execution_id)
            elif not won:
                # Unmatched while still pending means it ran out of time: say so for good.
                await repo.expire_if_due(conn, owner, approval_id, actor=actor)
            record = await repo.get_approval(conn, owner, approval_id)
        return won, record

    async def _start_execution(
        self, conn: AsyncConnection, approval_id: str, execution_id: str
    ) -> None:
        instance_id = self._executor.instance_id
        if not await executions_repo.insert_running(
            conn, execution_id, approval_id, instance_id, actor=instance(instance_id)
        ):
            # Raising rolls the yes back too: the approval stays pending.
            raise Unavailable(
                "this instance can't run actions right now; nothing was decided",
                reason="INSTANCE_LEASE_LAPSED",
            )


def _retrieve_outcome(task: asyncio.Task) -> None:
    """Nobody may be waiting any more; an error was answered or logged."""
    if not task.cancelled():
        task.exception()
