"""What the model is told, in order (domain.prompt): masked, never a value.
Steps write their own entries (store/steps.py); here the person's words
and the reads."""

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from nod_tasks.domain import prompt
from nod_tasks.store.models import transcript


async def add(conn: AsyncConnection, task_id: str, *entries: prompt.Entry) -> None:
    await conn.execute(
        transcript.insert(), [{"task_id": task_id, "entry": e.to_json()} for e in entries]
    )


async def read(conn: AsyncConnection, task_id: str) -> list[prompt.Entry]:
    query = (
        sa.select(transcript.c.entry)
        .where(transcript.c.task_id == task_id)
        .order_by(transcript.c.id)
    )
    return [prompt.from_json(row.entry) for row in await conn.execute(query)]
