"""SQL for the pictures of steps' pages: kept while the task's pictures stay
under its cap, read by the task's owner alone, erased with the step (the
foreign key) or all of a person's at once (the person is being removed).
Nothing here is ever read into what the model is told."""

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncConnection

from nod_tasks.domain.pictures import PagePicture
from nod_tasks.store.models import step_screenshots, tasks


async def keep(
    conn: AsyncConnection, task_id: str, number: int, picture: PagePicture, cap_bytes: int
) -> bool:
    """Kept, unless the task's pictures with this one would pass
    `cap_bytes` (or the step has one already): False then."""
    size = len(picture.image)
    held = (
        sa.select(sa.func.coalesce(sa.func.sum(sa.func.octet_length(step_screenshots.c.image)), 0))
        .where(step_screenshots.c.task_id == task_id)
        .scalar_subquery()
    )
    values = sa.select(
        sa.literal(task_id, step_screenshots.c.task_id.type),
        sa.literal(number, step_screenshots.c.number.type),
        sa.literal(picture.image, step_screenshots.c.image.type),
        sa.literal(picture.media_type, step_screenshots.c.media_type.type),
    ).where(held + size <= cap_bytes)
    statement = (
        insert(step_screenshots)
        .from_select(["task_id", "number", "image", "media_type"], values)
        .on_conflict_do_nothing(index_elements=["task_id", "number"])
        .returning(step_screenshots.c.number)
    )
    return (await conn.execute(statement)).first() is not None


class ScreenshotRows:
    """The pictures of steps' pages, inside a transaction."""

    def __init__(self, conn: AsyncConnection) -> None:
        self._conn = conn

    async def keep(self, task_id: str, number: int, picture: PagePicture, cap_bytes: int) -> bool:
        return await keep(self._conn, task_id, number, picture, cap_bytes)

    async def get(self, owner: str, task_id: str, number: int) -> PagePicture | None:
        """The picture of a step of the owner's task; None for another
        person's task, or a step with none."""
        query = (
            sa.select(step_screenshots.c.image, step_screenshots.c.media_type)
            .join(tasks, tasks.c.id == step_screenshots.c.task_id)
            .where(
                tasks.c.owner == owner,
                step_screenshots.c.task_id == task_id,
                step_screenshots.c.number == number,
            )
        )
        row = (await self._conn.execute(query)).first()
        return PagePicture(bytes(row.image), row.media_type) if row else None

    async def erase_all_of(self, owner: str) -> int:
        """Every picture of the owner's tasks; how many there were."""
        owned = sa.select(tasks.c.id).where(tasks.c.owner == owner)
        result = await self._conn.execute(
            step_screenshots.delete().where(step_screenshots.c.task_id.in_(owned))
        )
        return result.rowcount or 0
