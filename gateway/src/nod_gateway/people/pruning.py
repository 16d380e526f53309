"""Pruning the gateway's records that only grow: sign-in attempts and expired
sessions, deleted once older than their keep, on a schedule
(nodkit.pruning, as every service prunes; each round logs `gateway.pruned`
with the rows deleted by table, `sign_in_attempts` and `sessions`).

Each round deletes in small batches, oldest first through an index on the
time alone (migration 0002).

What stays is what the sign-in limit reads: the settings refuse a keep of
attempts shorter than the window the failures are counted in
(GatewaySettings), so every failure inside the window is still counted.
"""

from collections.abc import Awaitable

from sqlalchemy.ext.asyncio import AsyncEngine

from nod_gateway.people.models import sessions, sign_in_attempts
from nod_gateway.settings import GatewaySettings
from nodkit.pruning import Prunable, prune_forever


def prunables(settings: GatewaySettings) -> tuple[Prunable, ...]:
    return (
        Prunable(sign_in_attempts, sign_in_attempts.c.at, settings.sign_in_attempts_keep_s),
        # An expired session is kept a while by when it expired.
        Prunable(sessions, sessions.c.expires_at, settings.expired_sessions_keep_s),
    )


def prune_on_schedule(engine: AsyncEngine, settings: GatewaySettings) -> Awaitable[None]:
    return prune_forever(
        engine,
        prunables(settings),
        settings.prune_interval_s,
        settings.prune_batch,
        event="gateway.pruned",
    )
