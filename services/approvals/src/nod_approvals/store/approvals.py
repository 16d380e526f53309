"""SQL for approvals and their history. Every state change goes through
nodkit.history.move: a conditional update and its history row in one
statement, whose returned rows say whether (and what) it changed."""

from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncConnection

from nod_approvals.domain.approvals import (
    EXPIRED_REASON,
    ApprovalRecord,
    ApprovalState,
    ExecutionRecord,
    ExecutionState,
)
from nod_approvals.store.models import APPROVAL_HISTORY, accounts, approvals, executions
from nodkit import history, listing
from nodkit.errors import NotFound
from nodkit.leases import seconds_from_now

PENDING = ApprovalState.PENDING

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
    names = (
        "id",
        "task_id",
        "request_id",
        "account_id",
        "app",
        "action",
        "summary",
        "saved_action",
        "digest",
    )
    times = ("created_at", "expires_at", "decided_at", "updated_at")
    return ApprovalRecord(
        **{name: getattr(row, name) for name in (*names, *times)},
        state=ApprovalState(row.state),
        reason=row.reason,
        execution=_execution(row),
    )


async def insert_approval(
    conn: AsyncConnection, owner: str, ttl_s: float, **values: str
) -> str | None:
    """A new PENDING approval, only while its account is connected and only
    if the person's request id is new; None otherwise (nothing written)."""
    row = {**values, "owner": owner, "state": PENDING.value}
    account_connected = sa.exists().where(
        accounts.c.id == values["account_id"],
        accounts.c.owner == owner,
        accounts.c.disconnected_at.is_(None),
    )
    chosen = sa.select(
        *(sa.literal(value, approvals.c[name].type) for name, value in row.items()),
        seconds_from_now(ttl_s),
    ).where(account_connected)
    statement = (
        insert(approvals)
        .from_select([*row, "expires_at"], chosen)
        .on_conflict_do_nothing(index_elements=["owner", "request_id"])
        .returning(approvals.c.id)
    )
    return (await conn.execute(statement)).scalar_one_or_none()


async def find_by_request(
    conn: AsyncConnection, owner: str, request_id: str
) -> ApprovalRecord | None:
    query = _WITH_EXECUTION.where(approvals.c.owner == owner, approvals.c.request_id == request_id)
    row = (await conn.execute(query)).first()
    return _record(row) if row else None


async def record_proposed(conn: AsyncConnection, approval_id: str, *, actor: str) -> None:
    await history.record(conn, APPROVAL_HISTORY, approval_id, actor=actor, to_state=PENDING)


async def get_approval(conn: AsyncConnection, owner: str, approval_id: str) -> ApprovalRecord:
    """Another person's approval is as missing as one that never was."""
    query = _WITH_EXECUTION.where(approvals.c.owner == owner, approvals.c.id == approval_id)
    row = (await conn.execute(query)).first()
    if row is None:
        raise NotFound("no such approval", reason="APPROVAL_NOT_FOUND")
    return _record(row)


async def get_approvals(
    conn: AsyncConnection, owner: str, approval_ids: Sequence[str]
) -> list[ApprovalRecord]:
    """Oldest first."""
    query = _WITH_EXECUTION.where(
        approvals.c.owner == owner, approvals.c.id.in_(approval_ids)
    ).order_by(approvals.c.created_at, approvals.c.id)
    return [_record(row) for row in await conn.execute(query)]


async def list_approvals(
    conn: AsyncConnection,
    owner: str,
    *,
    task_id: str | None,
    state: ApprovalState | None,
    page: listing.PageRequest,
) -> listing.Page[ApprovalRecord]:
    query = _WITH_EXECUTION.where(approvals.c.owner == owner)
    if task_id is not None:
        query = query.where(approvals.c.task_id == task_id)
    if state is not None:
        query = query.where(approvals.c.state == state.value)
    return await listing.fetch_page(conn, query, approvals, page, _record)


async def decide(
    conn: AsyncConnection, owner: str, approval_id: str, target: ApprovalState, *, actor: str
) -> bool:
    """PENDING -> target, only while unexpired. False if nothing matched."""
    moved = await history.move(
        conn,
        approvals,
        APPROVAL_HISTORY,
        approvals.c.owner == owner,
        approvals.c.id == approval_id,
        approvals.c.expires_at > sa.func.now(),
        from_state=PENDING,
        to_state=target,
        actor=actor,
        values={"decided_at": sa.func.now()},
    )
    return bool(moved)


async def _end_pending(
    conn: AsyncConnection,
    *where: sa.ColumnElement[bool],
    to_state: ApprovalState,
    actor: str,
    reason: str,
) -> list[str]:
    ended = await history.move(
        conn,
        approvals,
        APPROVAL_HISTORY,
        *where,
        from_state=PENDING,
        to_state=to_state,
        actor=actor,
        reason=reason,
        values={"reason": reason},
    )
    return [row.id for row in ended]


async def cancel_for_task(
    conn: AsyncConnection, owner: str, task_id: str, *, actor: str, reason: str
) -> list[str]:
    return await _end_pending(
        conn,
        approvals.c.owner == owner,
        approvals.c.task_id == task_id,
        approvals.c.expires_at > sa.func.now(),
        to_state=ApprovalState.CANCELLED,
        actor=actor,
        reason=reason,
    )


async def expire_if_due(
    conn: AsyncConnection, owner: str, approval_id: str, *, actor: str
) -> list[str]:
    return await _end_pending(
        conn,
        approvals.c.owner == owner,
        approvals.c.id == approval_id,
        approvals.c.expires_at <= sa.func.now(),
        to_state=ApprovalState.EXPIRED,
        actor=actor,
        reason=EXPIRED_REASON,
    )


async def expire_all_due(conn: AsyncConnection, *, actor: str) -> list[str]:
    return await _end_pending(
        conn,
        approvals.c.expires_at <= sa.func.now(),
        to_state=ApprovalState.EXPIRED,
        actor=actor,
        reason=EXPIRED_REASON,
    )


async def list_events(conn: AsyncConnection, approval_id: str) -> list[sa.Row]:
    return await history.events(conn, APPROVAL_HISTORY, approval_id)
