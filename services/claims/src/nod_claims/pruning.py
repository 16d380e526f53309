"""Pruning the claims service's records that only grow: the request ids of
PutItem and PutPrivateEntry, and which TOTP time steps' codes were given,
deleted once older than their keep, on a schedule (nodkit.pruning).

The claims themselves and their events stay: they are the record of what
was entered, which a person or support may ask about."""

from collections.abc import Awaitable

from sqlalchemy.ext.asyncio import AsyncEngine

from nod_claims.settings import ClaimsSettings
from nod_claims.store.models import totp_steps, vault_requests
from nodkit.background import every
from nodkit.logging import get_logger
from nodkit.pruning import Prunable, prune

log = get_logger("nod_claims.pruning")


def prunables(settings: ClaimsSettings) -> tuple[Prunable, ...]:
    return (
        Prunable(vault_requests, vault_requests.c.created_at, settings.request_ids_keep_s),
        Prunable(totp_steps, totp_steps.c.created_at, settings.totp_steps_keep_s),
    )


async def prune_once(engine: AsyncEngine, settings: ClaimsSettings) -> dict[str, int]:
    """Rows deleted, by table."""
    pruned = {p.name: await prune(engine, p, settings.prune_batch) for p in prunables(settings)}
    if any(pruned.values()):
        log.info("claims.pruned", **pruned)
    return pruned


def prune_forever(engine: AsyncEngine, settings: ClaimsSettings) -> Awaitable[None]:
    """A round every interval until cancelled; a failed round (the database
    away) is logged and the next one tries again."""
    return every(settings.prune_interval_s, lambda: prune_once(engine, settings), event="prune")
