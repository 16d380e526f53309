"""A task's events: written with every move (store/tasks.py) and step
(store/steps.py); here the ones that move nothing, and the reads."""

from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from nod_tasks.domain.events import TaskEvent
from nod_tasks.store.models import events, tasks
from nod_tasks.store.records import to_event


async def add_event(conn: AsyncConnection, task_id: str, kind: str, data: dict[str, Any]) -> None:
    """An event that moves nothing (a failed model attempt, a resolution),
    numbered by its task's counter."""
    counted = (
        tasks.update()
        .where(tasks.c.id == task_id)
        .values(last_event=tasks.c.last_event + 1)
        .returning(tasks.c.id, tasks.c.last_event, tasks.c.state)
        .cte("counted")
    )
    logged = events.insert().from_select(
        ["task_id", "number", "state", "kind", "data"],
        sa.select(
            counted.c.id,
            counted.c.last_event,
            counted.c.state,
            sa.literal(kind, events.c.kind.type),
            sa.literal(data, events.c.data.type),
        ),
    )
    await conn.execute(logged.add_cte(counted))


async def list_events(
    conn: AsyncConnection, task_id: str, after: int, limit: int
) -> list[TaskEvent]:
    query = (
        sa.select(events)
        .where(events.c.task_id == task_id, events.c.number > after)
        .order_by(events.c.number)
        .limit(limit)
    )
    return [to_event(row) for row in await conn.execute(query)]
