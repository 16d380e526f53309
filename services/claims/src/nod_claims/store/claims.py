"""SQL for claims and their holders' leases. State changes go through
nodkit.history.move (a conditional update and its history row in one
statement); uniqueness is the database's job."""

import json
from datetime import datetime
from typing import Any

import psycopg
import sqlalchemy as sa
from psycopg.rows import namedtuple_row
from sqlalchemy.ext.asyncio import AsyncConnection

from nod_claims.domain.claims import (
    CheckResult,
    ClaimRecord,
    ClaimRequest,
    ClaimState,
    EntryKind,
)
from nod_claims.store.models import CLAIM_HISTORY, HOLDER_LEASES, claims
from nodkit import history, listing

# One statement: insert the claim only if the holder's lease is live; a
# second claim for the same operation does nothing and returns no row.
_INSERT_CLAIM = sa.text(
    """
    INSERT INTO claims.claims
        (owner, operation_id, kind, item_id, companion_entry_id, origin, frame_origin,
         submit_origin, task_id, holder, state)
    SELECT :owner, :operation_id, :kind, :item_id, :companion_entry_id, :origin, :frame_origin,
           :submit_origin, :task_id, :holder, 'running'
    WHERE EXISTS (SELECT 1 FROM claims.holders
                  WHERE holder = :holder AND lease_expires_at > now())
    ON CONFLICT (owner, operation_id) DO NOTHING
    RETURNING *
    """
)


# The common case, for a whole batch of claims in one statement and one
# round trip (run it in autocommit; see claim_batches.py): saved logins and
# cards, each granted only if the item is the person's, of that kind, its
# holder's lease is live, and where its values would go is inside the
# value's binding (G13, the rules of domain/bindings.py): a login's top
# page, frame and submission each its site or one of its equivalents; a
# card's top page its merchant or a hosted payment page named in the yes,
# under the binding registered for that operation, item and task, and its
# submission there or to the frame holding its fields. A claim that is not
# granted (anything off, or the operation already claimed) simply has no
# row; the caller then finds out why, without writing anything. Rows are
# inserted in key order, so two batches never wait on each other in a
# cycle. A new claim is its request plus an id and a time, so only those
# (and the binding's origins) come back: decoding whole rows was much of
# the statement's cost on our side.
# It runs on a plain psycopg connection (nodkit.db.open_hot_path_pool):
# SQLAlchemy's checkout and execution cost more CPU than the statement.
_CLAIM_SAVED_ITEMS = """
    WITH wanted AS (
        SELECT * FROM jsonb_to_recordset(%s::jsonb) AS w(
            n int, owner text, operation_id text, kind text, item_id uuid, origin text,
            frame_origin text, submit_origin text, task_id text, holder text
        )
    ), bound AS (
        SELECT w.*, v.sealed_fields,
               CASE WHEN w.kind = 'card'
                    THEN array_prepend(b.merchant_origin, b.hosted_payment_origins)
                    ELSE array_prepend(v.origin, v.equivalent_origins) END AS allowed
          FROM wanted w
          JOIN claims.vault_items v
            ON v.id = w.item_id AND v.owner = w.owner AND v.kind = w.kind
          LEFT JOIN claims.card_bindings b
            ON w.kind = 'card' AND b.owner = w.owner AND b.operation_id = w.operation_id
           AND b.item_id = w.item_id AND b.task_id = w.task_id
    ), grantable AS (
        SELECT * FROM bound w
         WHERE w.origin = ANY(w.allowed)
           AND (w.kind = 'card' OR w.frame_origin = ANY(w.allowed))
           AND (w.submit_origin IS NULL OR w.submit_origin = ANY(w.allowed)
                OR (w.kind = 'card' AND w.submit_origin = w.frame_origin))
           AND EXISTS (SELECT 1 FROM claims.holders h
                        WHERE h.holder = w.holder AND h.lease_expires_at > now())
    ), inserted AS (
        INSERT INTO claims.claims
            (owner, operation_id, kind, item_id, origin, frame_origin, submit_origin, task_id,
             holder, state)
        SELECT owner, operation_id, kind, item_id, origin, frame_origin, submit_origin, task_id,
               holder, 'running'
          FROM grantable
         ORDER BY owner, operation_id
        ON CONFLICT (owner, operation_id) DO NOTHING
        RETURNING id, owner, operation_id, holder, created_at
    ), logged AS (
        INSERT INTO claims.claim_events (claim_id, actor, from_state, to_state)
        SELECT id, holder, NULL, 'running' FROM inserted
    )
    SELECT g.n, g.sealed_fields, inserted.id::text AS id, inserted.created_at, g.allowed
      FROM inserted
      JOIN grantable g ON g.owner = inserted.owner AND g.operation_id = inserted.operation_id
"""


# The hot path's other half, MarkSubmitted / MarkUncertain: the change and
# history row nodkit.history.move would write, as one autocommit statement on
# the psycopg pool (a transaction through SQLAlchemy costs three round trips
# and more CPU than the statement). It is the only way a claim leaves RUNNING
# for its holder.
_FINISH_RUNNING = """
    WITH moved AS (
        UPDATE claims.claims
           SET state = %(target)s, reason = %(reason)s, updated_at = now()
         WHERE owner = %(owner)s AND id = %(claim_id)s AND holder = %(holder)s
           AND state = 'running'
        RETURNING *
    ), logged AS (
        INSERT INTO claims.claim_events (claim_id, actor, from_state, to_state, reason)
        SELECT id, %(holder)s, 'running', %(target)s, %(reason)s FROM moved
    )
    SELECT * FROM moved
"""


def to_record(row: Any) -> ClaimRecord:
    # Text statements hand back uuid.UUID; table statements, strings.
    return ClaimRecord(
        id=str(row.id),
        operation_id=row.operation_id,
        kind=EntryKind(row.kind),
        item_id=str(row.item_id),
        companion_entry_id=str(row.companion_entry_id) if row.companion_entry_id else None,
        origin=row.origin,
        task_id=row.task_id,
        holder=row.holder,
        state=ClaimState(row.state),
        check=CheckResult(row.check_result) if row.check_result else None,
        reason=row.reason,
        created_at=row.created_at,
        updated_at=row.updated_at,
        frame_origin=row.frame_origin or row.origin,
        submit_origin=row.submit_origin,
    )


def _claim_params(owner: str, request: ClaimRequest) -> dict:
    return {
        "owner": owner,
        "operation_id": request.operation_id,
        "kind": request.kind.value,
        "item_id": request.item_id,
        "companion_entry_id": request.companion_entry_id,
        "origin": request.origin,
        "frame_origin": request.destination.frame_origin,
        "submit_origin": request.submit_origin,
        "task_id": request.task_id,
        "holder": request.holder,
    }


async def claim_saved_items(
    conn: psycopg.AsyncConnection, wanted: list[tuple[str, ClaimRequest]]
) -> dict[int, tuple[ClaimRecord, dict[str, str], list[str]]]:
    """Claims (plus history) for many (owner, request) pairs at once, at most
    one per (owner, operation id). Returns the granted ones by their index
    in `wanted`, with the item's sealed fields and its binding's origins."""
    # One JSON parameter: far less work for the driver than eight arrays.
    batch = json.dumps(
        [
            {
                "n": n,
                "owner": owner,
                "operation_id": r.operation_id,
                "kind": r.kind.value,
                "item_id": r.item_id,
                "origin": r.origin,
                "frame_origin": r.destination.frame_origin,
                "submit_origin": r.submit_origin,
                "task_id": r.task_id,
                "holder": r.holder,
            }
            for n, (owner, r) in enumerate(wanted)
        ]
    )
    cursor: Any
    async with conn.cursor() as cursor:
        await cursor.execute(_CLAIM_SAVED_ITEMS, (batch,))
        rows = await cursor.fetchall()
    return {
        n: (_new_claim(wanted[n][1], claim_id, created_at), sealed, allowed)
        for n, sealed, claim_id, created_at, allowed in rows
    }


def _new_claim(request: ClaimRequest, claim_id: str, at: datetime) -> ClaimRecord:
    """What the row just inserted for `request` holds."""
    return ClaimRecord(
        id=claim_id,
        operation_id=request.operation_id,
        kind=request.kind,
        item_id=request.item_id,
        companion_entry_id=None,
        origin=request.origin,
        task_id=request.task_id,
        holder=request.holder,
        state=ClaimState.RUNNING,
        check=None,
        reason="",
        created_at=at,
        updated_at=at,
        frame_origin=request.destination.frame_origin,
        submit_origin=request.submit_origin,
    )


async def insert_running_claim(
    conn: AsyncConnection, owner: str, request: ClaimRequest
) -> ClaimRecord | None:
    """Inside a transaction that then takes the one-time entry."""
    row = (await conn.execute(_INSERT_CLAIM, _claim_params(owner, request))).first()
    return to_record(row) if row else None


async def holder_is_live(conn: AsyncConnection, holder: str) -> bool:
    return bool((await conn.execute(sa.select(HOLDER_LEASES.is_live(holder)))).scalar_one())


async def add_event(
    conn: AsyncConnection,
    claim_id: str,
    *,
    actor: str,
    from_state: ClaimState | None,
    to_state: ClaimState,
    reason: str = "",
) -> None:
    await history.record(
        conn,
        CLAIM_HISTORY,
        claim_id,
        actor=actor,
        from_state=from_state,
        to_state=to_state,
        reason=reason,
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


async def finish_running_now(
    conn: psycopg.AsyncConnection,
    owner: str,
    claim_id: str,
    holder: str,
    target: ClaimState,
    reason: str,
) -> ClaimRecord | None:
    """RUNNING -> target, only for its holder, in autocommit. None if nothing matched."""
    params = {
        "owner": owner,
        "claim_id": claim_id,
        "holder": holder,
        "target": target.value,
        "reason": reason,
    }
    cursor: Any
    async with conn.cursor(row_factory=namedtuple_row) as cursor:
        await cursor.execute(_FINISH_RUNNING, params)
        row = await cursor.fetchone()
    return to_record(row) if row else None


async def record_check(
    conn: AsyncConnection, owner: str, claim_id: str, check: CheckResult
) -> ClaimRecord | None:
    """Beside the SUBMITTED state, once."""
    moved = await history.move(
        conn,
        claims,
        CLAIM_HISTORY,
        claims.c.owner == owner,
        claims.c.id == claim_id,
        claims.c.check_result.is_(None),
        from_state=ClaimState.SUBMITTED,
        to_state=ClaimState.SUBMITTED,
        actor="check",
        reason=f"check: {check.value}",
        values={"check_result": check.value},
    )
    return to_record(moved[0]) if moved else None


async def list_claims(
    conn: AsyncConnection,
    owner: str,
    *,
    task_id: str | None,
    state: ClaimState | None,
    page: listing.PageRequest,
) -> listing.Page[ClaimRecord]:
    query = sa.select(claims).where(claims.c.owner == owner)
    if task_id is not None:
        query = query.where(claims.c.task_id == task_id)
    if state is not None:
        query = query.where(claims.c.state == state.value)
    return await listing.fetch_page(conn, query, claims, page, to_record)


async def list_events(conn: AsyncConnection, claim_id: str) -> list[sa.Row]:
    return await history.events(conn, CLAIM_HISTORY, claim_id)


async def renew_lease(conn: AsyncConnection, holder: str, ttl_s: float) -> datetime:
    return await HOLDER_LEASES.renew(conn, holder, ttl_s)


async def count_running_claims_of(conn: AsyncConnection, holder: str) -> int:
    query = sa.select(sa.func.count()).where(
        claims.c.holder == holder, claims.c.state == ClaimState.RUNNING.value
    )
    return (await conn.execute(query)).scalar_one()


async def _end_running(
    conn: AsyncConnection, condition: sa.ColumnElement[bool], *, actor: str, reason: str
) -> list[ClaimRecord]:
    ended = await history.move(
        conn,
        claims,
        CLAIM_HISTORY,
        condition,
        from_state=ClaimState.RUNNING,
        to_state=ClaimState.UNCERTAIN,
        actor=actor,
        reason=reason,
        values={"reason": reason},
    )
    return [to_record(row) for row in ended]


async def release_holder(conn: AsyncConnection, holder: str, reason: str) -> list[ClaimRecord]:
    return await _end_running(
        conn, claims.c.holder == holder, actor=f"release:{holder}", reason=reason
    )


async def end_overdue(conn: AsyncConnection, max_running_s: float, actor: str) -> list[ClaimRecord]:
    return await _end_running(
        conn,
        claims.c.created_at
        <= sa.func.now() - sa.func.make_interval(0, 0, 0, 0, 0, 0, max_running_s),
        actor=actor,
        reason=f"it stayed RUNNING longer than {max_running_s:g} s: its end was never recorded",
    )


async def sweep_expired_leases(conn: AsyncConnection, actor: str) -> list[ClaimRecord]:
    return await _end_running(
        conn,
        HOLDER_LEASES.lapsed(claims.c.holder),
        actor=actor,
        reason="the runner holding it stopped renewing its lease",
    )
