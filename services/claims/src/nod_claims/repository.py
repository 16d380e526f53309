"""SQL for claims and holders. State changes are conditional updates whose
row count says whether they happened; uniqueness is the database's job."""

from datetime import datetime

import psycopg
import sqlalchemy as sa
from psycopg.rows import namedtuple_row
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncConnection

from nod_claims.domain import CheckResult, ClaimRecord, ClaimRequest, ClaimState, EntryKind
from nod_claims.models import claim_events, claims, holders

# One statement: insert the claim only if the holder's lease is live; a
# second claim for the same operation does nothing and returns no row.
_INSERT_CLAIM = sa.text(
    """
    INSERT INTO claims.claims
        (owner, operation_id, kind, item_id, companion_entry_id, origin, task_id, holder, state)
    SELECT :owner, :operation_id, :kind, :item_id, :companion_entry_id, :origin, :task_id,
           :holder, 'running'
    WHERE EXISTS (SELECT 1 FROM claims.holders
                  WHERE holder = :holder AND lease_expires_at > now())
    ON CONFLICT (owner, operation_id) DO NOTHING
    RETURNING *
    """
)


# The common case, for a whole batch of claims in one statement and one
# round trip (run it in autocommit; see claim_batches.py): saved logins and
# cards, each granted only if the item is the person's, of that kind, for
# that site (logins), and its holder's lease is live. A claim that is not
# granted (anything off, or the operation already claimed) simply has no row;
# the caller then finds out why, without writing anything. Rows are inserted
# in key order, so two batches never wait on each other in a cycle.
# It runs on a plain psycopg connection (nodkit.db.open_hot_path_pool):
# SQLAlchemy's checkout and execution cost more CPU than the statement.
_CLAIM_SAVED_ITEMS = """
    WITH wanted AS (
        SELECT * FROM unnest(
            %(n)s::int[], %(owner)s::text[], %(operation_id)s::text[], %(kind)s::text[],
            %(item_id)s::uuid[], %(origin)s::text[], %(task_id)s::text[], %(holder)s::text[]
        ) AS w(n, owner, operation_id, kind, item_id, origin, task_id, holder)
    ), grantable AS (
        SELECT w.*, v.sealed_fields
          FROM wanted w
          JOIN claims.vault_items v
            ON v.id = w.item_id AND v.owner = w.owner AND v.kind = w.kind
           AND (w.kind <> 'saved_login' OR v.origin = w.origin)
         WHERE EXISTS (SELECT 1 FROM claims.holders h
                        WHERE h.holder = w.holder AND h.lease_expires_at > now())
    ), inserted AS (
        INSERT INTO claims.claims
            (owner, operation_id, kind, item_id, origin, task_id, holder, state)
        SELECT owner, operation_id, kind, item_id, origin, task_id, holder, 'running'
          FROM grantable
         ORDER BY owner, operation_id
        ON CONFLICT (owner, operation_id) DO NOTHING
        RETURNING *
    ), logged AS (
        INSERT INTO claims.claim_events (claim_id, actor, from_state, to_state)
        SELECT id, holder, NULL, 'running' FROM inserted
    )
    SELECT g.n, g.sealed_fields, inserted.*
      FROM inserted
      JOIN grantable g ON g.owner = inserted.owner AND g.operation_id = inserted.operation_id
"""


def _id(value) -> str | None:
    # Text statements hand back uuid.UUID; table statements, strings.
    return None if value is None else str(value)


def to_record(row) -> ClaimRecord:
    return ClaimRecord(
        id=_id(row.id),
        operation_id=row.operation_id,
        kind=EntryKind(row.kind),
        item_id=_id(row.item_id),
        companion_entry_id=_id(row.companion_entry_id),
        origin=row.origin,
        task_id=row.task_id,
        holder=row.holder,
        state=ClaimState(row.state),
        check=CheckResult(row.check_result) if row.check_result else None,
        reason=row.reason,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def _claim_params(owner: str, request: ClaimRequest) -> dict:
    return {
        "owner": owner,
        "operation_id": request.operation_id,
        "kind": request.kind.value,
        "item_id": request.item_id,
        "companion_entry_id": request.companion_entry_id,
        "origin": request.origin,
        "task_id": request.task_id,
        "holder": request.holder,
    }


async def claim_saved_items(
    conn: psycopg.AsyncConnection, wanted: list[tuple[str, ClaimRequest]]
) -> dict[int, tuple[ClaimRecord, dict[str, str]]]:
    """Claims (plus history) for many (owner, request) pairs at once, at most
    one per (owner, operation id). Returns the granted ones by their index
    in `wanted`, with the item's sealed fields."""
    columns: dict[str, list] = {
        "n": list(range(len(wanted))),
        "owner": [owner for owner, _ in wanted],
        "operation_id": [r.operation_id for _, r in wanted],
        "kind": [r.kind.value for _, r in wanted],
        "item_id": [r.item_id for _, r in wanted],
        "origin": [r.origin for _, r in wanted],
        "task_id": [r.task_id for _, r in wanted],
        "holder": [r.holder for _, r in wanted],
    }
    async with conn.cursor(row_factory=namedtuple_row) as cursor:
        await cursor.execute(_CLAIM_SAVED_ITEMS, columns)
        rows = await cursor.fetchall()
    return {row.n: (to_record(row), row.sealed_fields) for row in rows}


async def insert_running_claim(
    conn: AsyncConnection, owner: str, request: ClaimRequest
) -> ClaimRecord | None:
    """Inside a transaction that then takes the one-time entry."""
    row = (await conn.execute(_INSERT_CLAIM, _claim_params(owner, request))).first()
    return to_record(row) if row else None


async def holder_is_live(conn: AsyncConnection, holder: str) -> bool:
    query = sa.select(holders.c.holder).where(
        holders.c.holder == holder, holders.c.lease_expires_at > sa.func.now()
    )
    return (await conn.execute(query)).first() is not None


async def add_event(
    conn: AsyncConnection,
    claim_id: str,
    *,
    actor: str,
    from_state: ClaimState | None,
    to_state: ClaimState,
    reason: str = "",
) -> None:
    await conn.execute(
        claim_events.insert().values(
            claim_id=claim_id,
            actor=actor,
            from_state=from_state.value if from_state else None,
            to_state=to_state.value,
            reason=reason,
        )
    )


async def get_by_operation(
    conn: AsyncConnection, owner: str, operation_id: str
) -> ClaimRecord | None:
    row = (
        await conn.execute(
            sa.select(claims).where(claims.c.owner == owner, claims.c.operation_id == operation_id)
        )
    ).first()
    return to_record(row) if row else None


async def get_claim(conn: AsyncConnection, owner: str, claim_id: str) -> ClaimRecord | None:
    row = (
        await conn.execute(
            sa.select(claims).where(claims.c.owner == owner, claims.c.id == claim_id)
        )
    ).first()
    return to_record(row) if row else None


async def finish_running(
    conn: AsyncConnection,
    owner: str,
    claim_id: str,
    holder: str,
    target: ClaimState,
    reason: str = "",
) -> ClaimRecord | None:
    """RUNNING -> target, only for its holder. None if nothing matched."""
    row = (
        await conn.execute(
            claims.update()
            .where(
                claims.c.owner == owner,
                claims.c.id == claim_id,
                claims.c.holder == holder,
                claims.c.state == ClaimState.RUNNING.value,
            )
            .values(state=target.value, reason=reason, updated_at=sa.func.now())
            .returning(claims)
        )
    ).first()
    if row is None:
        return None
    await add_event(
        conn, claim_id, actor=holder, from_state=ClaimState.RUNNING, to_state=target, reason=reason
    )
    return to_record(row)


async def record_check(
    conn: AsyncConnection, owner: str, claim_id: str, check: CheckResult
) -> ClaimRecord | None:
    row = (
        await conn.execute(
            claims.update()
            .where(
                claims.c.owner == owner,
                claims.c.id == claim_id,
                claims.c.state == ClaimState.SUBMITTED.value,
                claims.c.check_result.is_(None),
            )
            .values(check_result=check.value, updated_at=sa.func.now())
            .returning(claims)
        )
    ).first()
    if row is None:
        return None
    await add_event(
        conn,
        claim_id,
        actor="check",
        from_state=ClaimState.SUBMITTED,
        to_state=ClaimState.SUBMITTED,
        reason=f"check: {check.value}",
    )
    return to_record(row)


async def list_claims(
    conn: AsyncConnection,
    owner: str,
    *,
    task_id: str | None,
    state: ClaimState | None,
    after: tuple[datetime, str] | None,
    limit: int,
) -> list[ClaimRecord]:
    query = sa.select(claims).where(claims.c.owner == owner)
    if task_id is not None:
        query = query.where(claims.c.task_id == task_id)
    if state is not None:
        query = query.where(claims.c.state == state.value)
    if after is not None:
        created_at, claim_id = after
        query = query.where(
            sa.tuple_(claims.c.created_at, claims.c.id)
            > sa.tuple_(
                sa.literal(created_at, sa.DateTime(timezone=True)),
                sa.literal(claim_id, claims.c.id.type),
            )
        )
    query = query.order_by(claims.c.created_at, claims.c.id).limit(limit)
    return [to_record(row) for row in await conn.execute(query)]


async def list_events(conn: AsyncConnection, claim_id: str):
    query = (
        sa.select(claim_events)
        .where(claim_events.c.claim_id == claim_id)
        .order_by(claim_events.c.id)
    )
    return list(await conn.execute(query))


async def renew_lease(conn: AsyncConnection, holder: str, ttl_s: float) -> datetime:
    expires = sa.func.now() + sa.func.make_interval(0, 0, 0, 0, 0, 0, ttl_s)
    statement = (
        insert(holders)
        .values(holder=holder, lease_expires_at=expires)
        .on_conflict_do_update(
            index_elements=[holders.c.holder],
            set_={"lease_expires_at": expires, "renewed_at": sa.func.now()},
        )
        .returning(holders.c.lease_expires_at)
    )
    return (await conn.execute(statement)).scalar_one()


async def count_running_claims_of(conn: AsyncConnection, holder: str) -> int:
    query = sa.select(sa.func.count()).where(
        claims.c.holder == holder, claims.c.state == ClaimState.RUNNING.value
    )
    return (await conn.execute(query)).scalar_one()


# Ends RUNNING claims as UNCERTAIN and writes their history in one statement,
# so a claim can't change without its event even if two replicas sweep at once.
_SWEEP = """
    WITH ended AS (
        UPDATE claims.claims c
           SET state = 'uncertain', reason = :reason, updated_at = now()
         WHERE c.state = 'running' AND {condition}
        RETURNING c.*
    ), logged AS (
        INSERT INTO claims.claim_events (claim_id, actor, from_state, to_state, reason)
        SELECT id, :actor, 'running', 'uncertain', :reason FROM ended
    )
    SELECT * FROM ended ORDER BY created_at
"""
_RELEASE_HOLDER = sa.text(_SWEEP.format(condition="c.holder = :holder"))
_SWEEP_EXPIRED = sa.text(
    _SWEEP.format(
        condition="c.holder IN (SELECT holder FROM claims.holders WHERE lease_expires_at <= now())"
    )
)


async def release_holder(conn: AsyncConnection, holder: str, reason: str) -> list[ClaimRecord]:
    rows = await conn.execute(
        _RELEASE_HOLDER, {"holder": holder, "reason": reason, "actor": f"release:{holder}"}
    )
    return [to_record(row) for row in rows]


async def sweep_expired_leases(conn: AsyncConnection, actor: str) -> list[ClaimRecord]:
    rows = await conn.execute(
        _SWEEP_EXPIRED,
        {"reason": "the runner holding it stopped renewing its lease", "actor": actor},
    )
    return [to_record(row) for row in rows]
