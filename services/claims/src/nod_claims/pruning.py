"""Pruning the claims service's records that only grow: the request ids of
PutItem and PutPrivateEntry, and which TOTP time steps' codes were given,
deleted once older than their keep, on a schedule (nodkit.pruning).

The claims themselves and their events stay: they are the record of what
was entered, which a person or support may ask about."""

from collections.abc import Awaitable

from sqlalchemy.ext.asyncio import AsyncEngine

from nod_claims.settings import ClaimsSettings
from nod_claims.store.models import totp_account_steps, totp_steps, vault_requests
from nodkit.pruning import Prunable, prune_forever


def prunables(settings: ClaimsSettings) -> tuple[Prunable, ...]:
    return (
        Prunable(vault_requests, vault_requests.c.created_at, settings.request_ids_keep_s),
        Prunable(totp_steps, totp_steps.c.created_at, settings.totp_steps_keep_s),
        Prunable(totp_account_steps, totp_account_steps.c.created_at, settings.totp_steps_keep_s),
    )


def prune_on_schedule(engine: AsyncEngine, settings: ClaimsSettings) -> Awaitable[None]:
    return prune_forever(
        engine,
        prunables(settings),
        settings.prune_interval_s,
        settings.prune_batch,
        event="claims.pruned",
    )
