"""Pruning the tasks service's records that only grow: the request ids of
Continue, deleted once older than their keep, on a schedule
(nodkit.pruning). Tasks, their steps, events and transcripts stay: they
are the person's record of what nod did. So do the pictures of the steps'
pages, bounded per task (NOD_TASKS_SCREENSHOT_BYTES_PER_TASK); each goes
with its step (a foreign key ON DELETE CASCADE), and all of a person's
with DeleteStepScreenshots when the person is removed."""

from collections.abc import Awaitable

from sqlalchemy.ext.asyncio import AsyncEngine

from nod_tasks.settings import TasksSettings
from nod_tasks.store.models import continue_requests
from nodkit.pruning import Prunable, prune_forever


def prune_on_schedule(engine: AsyncEngine, settings: TasksSettings) -> Awaitable[None]:
    requests = Prunable(
        continue_requests, continue_requests.c.created_at, settings.request_ids_keep_s
    )
    return prune_forever(
        engine, (requests,), settings.prune_interval_s, settings.prune_batch, event="tasks.pruned"
    )
