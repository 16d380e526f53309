"""Pruning the gateway's records that only grow: sign-in attempts and expired
sessions, deleted once older than their keep, on a schedule.

Each round deletes in small batches, each its own short transaction, oldest
first through an index on the time alone (migration 0002), so a round never
holds many locks beside the sign-ins going on. Replicas prune side by side:
a batch skips the rows another replica's batch has locked.

What stays is what the sign-in limit reads: the settings refuse a keep of
attempts shorter than the window the failures are counted in
(GatewaySettings), so every failure inside the window is still counted.
"""

from collections.abc import Awaitable
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from nod_gateway.people.models import sessions, sign_in_attempts
from nodkit.background import every
from nodkit.logging import get_logger

log = get_logger("nod_gateway.pruning")


@dataclass(frozen=True)
class Keep:
    """How long each kind of record is kept, and the most one delete removes."""

    sign_in_attempts_s: int
    expired_sessions_s: int
    batch: int


@dataclass(frozen=True)
class Pruned:
    sign_in_attempts: int
    expired_sessions: int


def _seconds_ago(seconds: int) -> sa.ColumnElement:
    return sa.func.now() - sa.func.make_interval(0, 0, 0, 0, 0, 0, seconds)


def _delete_oldest(
    table: sa.Table, key: sa.Column, time: sa.Column, older_than_s: int, batch: int
) -> sa.Delete:
    oldest = (
        sa.select(key)
        .where(time < _seconds_ago(older_than_s))
        .order_by(time)
        .limit(batch)
        .with_for_update(skip_locked=True)
    )
    return table.delete().where(key.in_(oldest.scalar_subquery()))


async def _in_batches(engine: AsyncEngine, statement: sa.Delete, batch: int) -> int:
    removed = 0
    while True:
        async with engine.begin() as conn:
            count = (await conn.execute(statement)).rowcount
        removed += count
        if count < batch:
            return removed


async def prune_once(engine: AsyncEngine, keep: Keep) -> Pruned:
    attempts = _delete_oldest(
        sign_in_attempts,
        sign_in_attempts.c.id,
        sign_in_attempts.c.at,
        keep.sign_in_attempts_s,
        keep.batch,
    )
    expired = _delete_oldest(
        sessions, sessions.c.token_hash, sessions.c.expires_at, keep.expired_sessions_s, keep.batch
    )
    pruned = Pruned(
        sign_in_attempts=await _in_batches(engine, attempts, keep.batch),
        expired_sessions=await _in_batches(engine, expired, keep.batch),
    )
    if pruned.sign_in_attempts or pruned.expired_sessions:
        log.info(
            "gateway.pruned",
            sign_in_attempts=pruned.sign_in_attempts,
            expired_sessions=pruned.expired_sessions,
            sign_in_attempts_keep_s=keep.sign_in_attempts_s,
            expired_sessions_keep_s=keep.expired_sessions_s,
        )
    return pruned


def prune_forever(engine: AsyncEngine, keep: Keep, interval_s: float) -> Awaitable[None]:
    """A round every interval until cancelled; a failed round (the database
    away) is logged and the next one tries again."""
    return every(interval_s, lambda: prune_once(engine, keep), event="gateway.prune")
