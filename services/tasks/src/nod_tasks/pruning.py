"""Pruning the tasks service's records that only grow: the request ids of
Continue, deleted once older than their keep, on a schedule
(nodkit.pruning). Tasks, their steps, events and transcripts stay: they
are the person's record of what nod did."""

from collections.abc import Awaitable

from sqlalchemy.ext.asyncio import AsyncEngine

from nod_tasks.settings import TasksSettings
from nod_tasks.store.models import continue_requests
from nodkit.background import every
from nodkit.logging import get_logger
from nodkit.pruning import Prunable, prune

log = get_logger("nod_tasks.pruning")


async def prune_once(engine: AsyncEngine, settings: TasksSettings) -> int:
    """Rows deleted."""
    requests = Prunable(
        continue_requests, continue_requests.c.created_at, settings.request_ids_keep_s
    )
    pruned = await prune(engine, requests, settings.prune_batch)
    if pruned:
        log.info("tasks.pruned", continue_requests=pruned)
    return pruned


def prune_forever(engine: AsyncEngine, settings: TasksSettings) -> Awaitable[None]:
    """A round every interval until cancelled; a failed round (the database
    away) is logged and the next one tries again."""
    return every(settings.prune_interval_s, lambda: prune_once(engine, settings), event="prune")
