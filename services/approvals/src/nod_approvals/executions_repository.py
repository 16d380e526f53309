"""SQL for executions: one per approval (a unique key), started only by an
instance with a live lease, ended only from RUNNING."""

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import UUID
from sqlalchemy.ext.asyncio import AsyncConnection

from nod_approvals.domain import ExecutionState
from nod_approvals.models import executions, instance_leases
from nod_approvals.repository import add_event


async def insert_running(
    conn: AsyncConnection, execution_id: str, approval_id: str, instance_id: str
) -> bool:
    """False if this instance's lease is not live: a sweeper could end the
    execution while it runs, so it must not start."""
    lease_is_live = sa.exists().where(
        instance_leases.c.instance_id == instance_id,
        instance_leases.c.lease_expires_at > sa.func.now(),
    )
    row = sa.select(
        sa.literal(execution_id, UUID(as_uuid=False)),
        sa.literal(approval_id, UUID(as_uuid=False)),
        sa.literal(instance_id),
        sa.literal(ExecutionState.RUNNING.value),
    ).where(lease_is_live)
    columns = ["id", "approval_id", "instance_id", "state"]
    statement = executions.insert().from_select(columns, row).returning(executions.c.id)
    return (await conn.execute(statement)).first() is not None


async def finish(
    conn: AsyncConnection,
    execution_id: str,
    instance_id: str,
    state: ExecutionState,
    *,
    result: str,
    reason: str,
) -> str | None:
    """RUNNING -> state for the instance running it; the approval id, or None
    if it was already ended (e.g. swept while this instance's lease lapsed)."""
    statement = (
        executions.update()
        .where(
            executions.c.id == execution_id,
            executions.c.instance_id == instance_id,
            executions.c.state == ExecutionState.RUNNING.value,
        )
        .values(state=state.value, result=result, reason=reason, finished_at=sa.func.now())
        .returning(executions.c.approval_id)
    )
    approval_id = (await conn.execute(statement)).scalar_one_or_none()
    if approval_id is not None:
        await add_event(
            conn,
            approval_id,
            subject="execution",
            actor=f"instance:{instance_id}",
            from_state=ExecutionState.RUNNING.value,
            to_state=state.value,
            reason=reason,
        )
    return approval_id


async def is_running(conn: AsyncConnection, execution_id: str, instance_id: str) -> bool:
    query = sa.select(executions.c.id).where(
        executions.c.id == execution_id,
        executions.c.instance_id == instance_id,
        executions.c.state == ExecutionState.RUNNING.value,
    )
    return (await conn.execute(query)).first() is not None
