"""SQL for approvals and their history. Every state change is a conditional
UPDATE whose returned rows say whether it happened."""

from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from nod_approvals.domain import ApprovalRecord, ApprovalState, ExecutionRecord, ExecutionState
from nod_approvals.models import approval_events, approvals, executions

_EXECUTION_COLUMNS = [c.label(f"execution_{c.name}") for c in executions.c]
_WITH_EXECUTION = sa.select(approvals, *_EXECUTION_COLUMNS).select_from(
    approvals.outerjoin(executions, executions.c.approval_id == approvals.c.id)
)


def _execution(row) -> ExecutionRecord | None:
    if row.execution_id is None:
        return None
    return ExecutionRecord(
        id=row.execution_id,
        approval_id=row.id,
        instance_id=row.execution_instance_id,
        state=ExecutionState(row.execution_state),
        result=row.execution_result,
        reason=row.execution_reason,
        started_at=row.execution_started_at,
        finished_at=row.execution_finished_at,
    )


def _record(row) -> ApprovalRecord:
    names = ("id", "task_id", "account_id", "app", "action", "summary", "saved_action", "digest")
    times = ("created_at", "expires_at", "decided_at", "updated_at")
    return ApprovalRecord(
        **{name: getattr(row, name) for name in (*names, *times)},
        state=ApprovalState(row.state),
        reason=row.reason,
        execution=_execution(row),
    )


async def insert_approval(conn: AsyncConnection, owner: str, ttl_s: float, **values) -> str:
    expires = sa.func.now() + sa.func.make_interval(0, 0, 0, 0, 0, 0, ttl_s)
    statement = (
        approvals.insert()
        .values(owner=owner, state=ApprovalState.PENDING.value, expires_at=expires, **values)
        .returning(approvals.c.id)
    )
    return (await conn.execute(statement)).scalar_one()


async def get_approval(
    conn: AsyncConnection, owner: str, approval_id: str
) -> ApprovalRecord | None:
    query = _WITH_EXECUTION.where(approvals.c.owner == owner, approvals.c.id == approval_id)
    row = (await conn.execute(query)).first()
    return _record(row) if row else None


async def list_approvals(
    conn: AsyncConnection,
    owner: str,
    *,
    task_id: str | None,
    state: ApprovalState | None,
    after: tuple[datetime, str] | None,
    limit: int,
) -> list[ApprovalRecord]:
    query = _WITH_EXECUTION.where(approvals.c.owner == owner)
    if task_id is not None:
        query = query.where(approvals.c.task_id == task_id)
    if state is not None:
        query = query.where(approvals.c.state == state.value)
    if after is not None:
        created_at, approval_id = after
        query = query.where(
            sa.tuple_(approvals.c.created_at, approvals.c.id)
            > sa.tuple_(
                sa.literal(created_at, approvals.c.created_at.type),
                sa.literal(approval_id, approvals.c.id.type),
            )
        )
    query = query.order_by(approvals.c.created_at, approvals.c.id).limit(limit)
    return [_record(row) for row in await conn.execute(query)]


async def decide(
    conn: AsyncConnection, owner: str, approval_id: str, target: ApprovalState
) -> bool:
    """PENDING -> target, only while unexpired. False if nothing matched."""
    statement = (
        approvals.update()
        .where(
            approvals.c.owner == owner,
            approvals.c.id == approval_id,
            approvals.c.state == ApprovalState.PENDING.value,
            approvals.c.expires_at > sa.func.now(),
        )
        .values(state=target.value, decided_at=sa.func.now(), updated_at=sa.func.now())
        .returning(approvals.c.id)
    )
    return (await conn.execute(statement)).first() is not None


async def add_event(
    conn: AsyncConnection,
    approval_id: str,
    *,
    subject: str,
    actor: str,
    from_state: str | None,
    to_state: str,
    reason: str = "",
) -> None:
    await conn.execute(
        approval_events.insert().values(
            approval_id=approval_id,
            subject=subject,
            actor=actor,
            from_state=from_state,
            to_state=to_state,
            reason=reason,
        )
    )


async def list_events(conn: AsyncConnection, approval_id: str):
    query = (
        sa.select(approval_events)
        .where(approval_events.c.approval_id == approval_id)
        .order_by(approval_events.c.id)
    )
    return list(await conn.execute(query))
