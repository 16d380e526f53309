"""Pruning the gateway's records that only grow: sign-in attempts and expired
sessions, deleted once older than their keep, on a schedule.

Each round deletes in small batches, oldest first through an index on the
time alone (migration 0002): nodkit.pruning.

What stays is what the sign-in limit reads: the settings refuse a keep of
attempts shorter than the window the failures are counted in
(GatewaySettings), so every failure inside the window is still counted.
"""

from collections.abc import Awaitable
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncEngine

from nod_gateway.people.models import sessions, sign_in_attempts
from nodkit.background import every
from nodkit.logging import get_logger
from nodkit.pruning import Prunable, prune

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


async def prune_once(engine: AsyncEngine, keep: Keep) -> Pruned:
    attempts = Prunable(sign_in_attempts, sign_in_attempts.c.at, keep.sign_in_attempts_s)
    expired = Prunable(sessions, sessions.c.expires_at, keep.expired_sessions_s)
    pruned = Pruned(
        sign_in_attempts=await prune(engine, attempts, keep.batch),
        expired_sessions=await prune(engine, expired, keep.batch),
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
