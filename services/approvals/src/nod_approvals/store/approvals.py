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
    EarlierRecord,
    ExecutionRecord,
    ExecutionState,
)
from nod_approvals.store.models import (
    APPROVAL_HISTORY,
    accounts,
    approval_events,
    approvals,
    executions,
)
from nodkit import history, listing
from nodkit.errors import NotFound
from nodkit.leases import seconds_from_now

PENDING = ApprovalState.PENDING
# The first key of the advisory locks proposals take turns with.
_PROPOSE_LOCKS = sa.func.hashtext("approvals.propose")

# An approval as read: with its execution and, for a possible duplicate,
# the earlier approval it repeats and that one's execution, as they are now.
_earlier = approvals.alias("earlier")
_earlier_execution = executions.alias("earlier_execution")
_EARLIER = ("state", "reason", "created_at", "decided_at")
_READ = sa.select(
    approvals,
    *(c.label(f"execution_{c.name}") for c in executions.c),
    *(_earlier.c[name].label(f"earlier_{name}") for name in _EARLIER),
    *(c.label(f"earlier_execution_{c.name}") for c in _earlier_execution.c),
).select_from(
    approvals.outerjoin(executions, executions.c.approval_id == approvals.c.id)
    .outerjoin(_earlier, _earlier.c.id == approvals.c.possible_duplicate_of)
    .outerjoin(_earlier_execution, _earlier_execution.c.approval_id == _earlier.c.id)
)


def _execution(row, prefix: str) -> ExecutionRecord | None:
    def column(name: str):
        return getattr(row, f"{prefix}{name}")

    if column("id") is None:
        return None
    return ExecutionRecord(
        id=column("id"),
        approval_id=column("approval_id"),
        instance_id=column("instance_id"),
        state=ExecutionState(column("state")),
        result=column("result"),
        reason=column("reason"),
        started_at=column("started_at"),
        finished_at=column("finished_at"),
    )


def _earlier_record(row) -> EarlierRecord | None:
    if row.possible_duplicate_of is None:
        return None
    return EarlierRecord(
        id=row.possible_duplicate_of,
        state=ApprovalState(row.earlier_state),
        reason=row.earlier_reason,
        created_at=row.earlier_created_at,
        decided_at=row.earlier_decided_at,
        execution=_execution(row, "earlier_execution_"),
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
        "reason",
    )
    times = ("created_at", "expires_at", "decided_at", "updated_at")
    return ApprovalRecord(
        **{name: getattr(row, name) for name in (*names, *times)},
        state=ApprovalState(row.state),
        execution=_execution(row, "execution_"),
        earlier=_earlier_record(row),
    )


async def insert_approval(
    conn: AsyncConnection, owner: str, ttl_s: float, **values: str
) -> str | None:
    """A new PENDING approval, only while its account is connected and only
    if the person's request id is new; None otherwise (nothing written). One
    repeating the saved action of an earlier approval of its task is marked
    as a possible duplicate of the first of them."""
    task_id, digest = values["task_id"], values["digest"]
    # Proposals of one saved action in one task take turns (until commit), so
    # each sees those before it and exactly one is the first.
    turn = sa.func.hashtext(sa.func.concat_ws("/", owner, task_id, digest))
    await conn.execute(sa.select(sa.func.pg_advisory_xact_lock(_PROPOSE_LOCKS, turn)))
    first_of_task = (
        sa.select(approvals.c.id)
        .where(
            approvals.c.owner == owner,
            approvals.c.task_id == task_id,
            approvals.c.digest == digest,
            approvals.c.saved_action == values["saved_action"],
            approvals.c.possible_duplicate_of.is_(None),
        )
        .order_by(approvals.c.created_at, approvals.c.id)
        .limit(1)
        .scalar_subquery()
    )
    row = {**values, "owner": owner, "state": PENDING.value}
    account_connected = sa.exists().where(
        accounts.c.id == values["account_id"],
        accounts.c.owner == owner,
        accounts.c.disconnected_at.is_(None),
    )
    chosen = sa.select(
        *(sa.literal(value, approvals.c[name].type) for name, value in row.items()),
        seconds_from_now(ttl_s),
        first_of_task,
    ).where(account_connected)
    statement = (
        insert(approvals)
        .from_select([*row, "expires_at", "possible_duplicate_of"], chosen)
        .on_conflict_do_nothing(index_elements=["owner", "request_id"])
        .returning(approvals.c.id)
    )
    return (await conn.execute(statement)).scalar_one_or_none()


async def find_by_request(
    conn: AsyncConnection, owner: str, request_id: str
) -> ApprovalRecord | None:
    query = _READ.where(approvals.c.owner == owner, approvals.c.request_id == request_id)
    row = (await conn.execute(query)).first()
    return _record(row) if row else None


async def record_proposed(conn: AsyncConnection, approval_id: str, *, actor: str) -> None:
    await history.record(conn, APPROVAL_HISTORY, approval_id, actor=actor, to_state=PENDING)


async def get_approval(conn: AsyncConnection, owner: str, approval_id: str) -> ApprovalRecord:
    """Another person's approval is as missing as one that never was."""
    query = _READ.where(approvals.c.owner == owner, approvals.c.id == approval_id)
    row = (await conn.execute(query)).first()
    if row is None:
        raise NotFound("no such approval", reason="APPROVAL_NOT_FOUND")
    return _record(row)


async def get_approvals(
    conn: AsyncConnection, owner: str, approval_ids: Sequence[str]
) -> list[ApprovalRecord]:
    """Oldest first."""
    query = _READ.where(approvals.c.owner == owner, approvals.c.id.in_(approval_ids)).order_by(
        approvals.c.created_at, approvals.c.id
    )
    return [_record(row) for row in await conn.execute(query)]


async def list_approvals(
    conn: AsyncConnection,
    owner: str,
    *,
    task_id: str | None,
    state: ApprovalState | None,
    page: listing.PageRequest,
) -> listing.Page[ApprovalRecord]:
    query = _READ.where(approvals.c.owner == owner)
    if task_id is not None:
        query = query.where(approvals.c.task_id == task_id)
    if state is not None:
        query = query.where(approvals.c.state == state.value)
    return await listing.fetch_page(conn, query, approvals, page, _record)


async def decide(
    conn: AsyncConnection,
    owner: str,
    approval_id: str,
    target: ApprovalState,
    *,
    actor: str,
    unmarked_only: bool,
) -> bool:
    """PENDING -> target, only while unexpired (and with `unmarked_only`,
    only if it is no possible duplicate). False if nothing matched."""
    moved = await history.move(
        conn,
        approvals,
        APPROVAL_HISTORY,
        approvals.c.owner == owner,
        approvals.c.id == approval_id,
        approvals.c.expires_at > sa.func.now(),
        *([approvals.c.possible_duplicate_of.is_(None)] if unmarked_only else []),
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


# Over: nothing about it runs or waits any more (an approved one once its
# execution has ended; approved with none yet is still to run).
_OVER = sa.or_(
    approvals.c.state.in_([ApprovalState.REJECTED, ApprovalState.CANCELLED, ApprovalState.EXPIRED]),
    sa.and_(
        approvals.c.state == ApprovalState.APPROVED,
        executions.c.state.is_not(None),
        executions.c.state != ExecutionState.RUNNING,
    ),
)


async def erase_words_of(conn: AsyncConnection, owner: str) -> tuple[int, list[str]]:
    """The words of the owner's approvals that are over, and of their
    executions: (how many approvals had words erased, the ids of those
    still pending or running, whose words stay for now). Their accounts'
    are store.accounts.erase_disconnected."""
    rows = await conn.execute(
        sa.select(approvals.c.id, approvals.c.erased_at, _OVER.label("over"))
        .select_from(approvals.outerjoin(executions, executions.c.approval_id == approvals.c.id))
        .where(approvals.c.owner == owner)
        .with_for_update(of=approvals)
    )
    seen = rows.all()
    still_open = sorted(str(row.id) for row in seen if not row.over)
    ids = [str(row.id) for row in seen if row.over and row.erased_at is None]
    if not ids:
        return 0, still_open
    await conn.execute(
        approvals.update()
        .where(approvals.c.id.in_(ids))
        .values(summary="", saved_action="", reason="", erased_at=sa.func.now())
    )
    await conn.execute(
        executions.update().where(executions.c.approval_id.in_(ids)).values(result="", reason="")
    )
    await conn.execute(
        approval_events.update().where(approval_events.c.approval_id.in_(ids)).values(reason="")
    )
    return len(ids), still_open
