"""SQL for executions: one per approval (a unique key), started only by an
instance with a live lease, ended only from RUNNING, each change written to
its approval's history in the same statement."""

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import UUID
from sqlalchemy.ext.asyncio import AsyncConnection

from nod_approvals.domain.approvals import ExecutionState
from nod_approvals.store.models import EXECUTION_HISTORY, INSTANCE_LEASES, executions
from nodkit import history

RUNNING = ExecutionState.RUNNING


async def insert_running(
    conn: AsyncConnection, execution_id: str, approval_id: str, instance_id: str, *, actor: str
) -> bool:
    """False if this instance's lease is not live: a sweeper could end the
    execution while it runs, so it must not start."""
    row = sa.select(
        sa.literal(execution_id, UUID(as_uuid=False)),
        sa.literal(approval_id, UUID(as_uuid=False)),
        sa.literal(instance_id),
        sa.literal(RUNNING.value),
    ).where(INSTANCE_LEASES.is_live(instance_id))
    columns = ["id", "approval_id", "instance_id", "state"]
    statement = executions.insert().from_select(columns, row).returning(executions.c.id)
    if (await conn.execute(statement)).first() is None:
        return False
    await history.record(conn, EXECUTION_HISTORY, approval_id, actor=actor, to_state=RUNNING)
    return True


async def finish(
    conn: AsyncConnection,
    execution_id: str,
    instance_id: str,
    state: ExecutionState,
    *,
    result: str,
    reason: str,
    actor: str,
) -> str | None:
    """RUNNING -> state for the instance running it; the approval id, or None
    if it was already ended (e.g. swept while this instance's lease lapsed)."""
    moved = await history.move(
        conn,
        executions,
        EXECUTION_HISTORY,
        executions.c.id == execution_id,
        executions.c.instance_id == instance_id,
        from_state=RUNNING,
        to_state=state,
        actor=actor,
        reason=reason,
        values={"result": result, "reason": reason, "finished_at": sa.func.now()},
    )
    return moved[0].approval_id if moved else None


async def is_running(conn: AsyncConnection, execution_id: str, instance_id: str) -> bool:
    query = sa.select(executions.c.id).where(
        executions.c.id == execution_id,
        executions.c.instance_id == instance_id,
        executions.c.state == RUNNING,
    )
    return (await conn.execute(query)).first() is not None


async def _end_running(
    conn: AsyncConnection, *where: sa.ColumnElement[bool], actor: str, reason: str
) -> list[str]:
    ended = await history.move(
        conn,
        executions,
        EXECUTION_HISTORY,
        *where,
        from_state=RUNNING,
        to_state=ExecutionState.UNCERTAIN,
        actor=actor,
        reason=reason,
        values={"reason": reason, "finished_at": sa.func.now()},
    )
    return [row.approval_id for row in ended]


async def end_own_running(
    conn: AsyncConnection,
    instance_id: str,
    *,
    keep: Sequence[str],
    min_age_s: float,
    actor: str,
    reason: str,
) -> list[str]:
    """This instance's executions it is not running (any more), old enough
    that their row can't be a moment ahead of the in-flight list `keep`."""
    old_enough = executions.c.started_at <= sa.func.now() - sa.func.make_interval(
        0, 0, 0, 0, 0, 0, min_age_s
    )
    where = [executions.c.instance_id == instance_id, old_enough]
    if keep:
        where.append(executions.c.id.not_in(keep))
    return await _end_running(conn, *where, actor=actor, reason=reason)


async def end_own_abandoned(
    conn: AsyncConnection,
    instance_id: str,
    execution_ids: Sequence[str],
    *,
    actor: str,
    reason: str,
) -> list[str]:
    """This instance's executions it knows it will never run or end."""
    if not execution_ids:
        return []
    return await _end_running(
        conn,
        executions.c.instance_id == instance_id,
        executions.c.id.in_(execution_ids),
        actor=actor,
        reason=reason,
    )


async def end_running_of_lapsed_instances(
    conn: AsyncConnection, *, actor: str, reason: str
) -> list[str]:
    return await _end_running(
        conn, INSTANCE_LEASES.lapsed(executions.c.instance_id), actor=actor, reason=reason
    )
