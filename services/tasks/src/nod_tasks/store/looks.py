"""SQL for looks (G14): the last look at each uncertain step, its finding
and the page it saw, read by the task's owner alone and erased with the
step, or with all of a person's pictures (the person is being removed).
Nothing here is ever read into what the model is told."""

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncConnection

from nod_tasks.domain.events import StepView
from nod_tasks.domain.looks import Finding, StepLook
from nod_tasks.domain.pictures import PagePicture
from nod_tasks.domain.steps import StepRecord
from nod_tasks.store.events import add_event
from nod_tasks.store.models import step_looks, tasks
from nod_tasks.store.records import step_view_to_json


class LookRows:
    """Looks, inside a transaction."""

    def __init__(self, conn: AsyncConnection) -> None:
        self._conn = conn

    async def keep(
        self, task_id: str, step: StepRecord, found: StepLook, picture: PagePicture | None
    ) -> None:
        """The step's look, replacing an earlier one, and its event
        (step.looked: the step as it stands, with the look)."""
        values = {
            "task_id": task_id,
            "number": found.step,
            "finding": found.finding.value,
            "sentence": found.sentence,
            "url": found.url,
            "looked_at": found.looked_at,
            "image": picture.image if picture else None,
            "media_type": picture.media_type if picture else None,
        }
        statement = insert(step_looks).values(**values)
        kept = {k: statement.excluded[k] for k in values if k not in ("task_id", "number")}
        await self._conn.execute(
            statement.on_conflict_do_update(index_elements=["task_id", "number"], set_=kept)
        )
        data = {"step": step_view_to_json(StepView.of(step, found)), "message": found.sentence}
        await add_event(self._conn, task_id, "step.looked", data)

    async def of_task(self, task_id: str) -> dict[int, StepLook]:
        """The task's looks, by step number (its owner was checked by the caller)."""
        query = sa.select(
            step_looks.c.number,
            step_looks.c.finding,
            step_looks.c.sentence,
            step_looks.c.url,
            step_looks.c.looked_at,
            step_looks.c.image.isnot(None).label("has_image"),
        ).where(step_looks.c.task_id == task_id)
        return {
            row.number: StepLook(
                row.number,
                Finding(row.finding),
                row.sentence,
                row.url,
                row.looked_at,
                row.has_image,
            )
            for row in await self._conn.execute(query)
        }

    async def picture(self, owner: str, task_id: str, number: int) -> PagePicture | None:
        """The page the step's last look saw; None for another person's task,
        or a step with no look or no picture."""
        query = (
            sa.select(step_looks.c.image, step_looks.c.media_type)
            .join(tasks, tasks.c.id == step_looks.c.task_id)
            .where(
                tasks.c.owner == owner,
                step_looks.c.task_id == task_id,
                step_looks.c.number == number,
                step_looks.c.image.isnot(None),
            )
        )
        row = (await self._conn.execute(query)).first()
        return PagePicture(bytes(row.image), row.media_type) if row else None

    async def erase_pictures_of(self, owner: str) -> int:
        """The pictures of every look of the owner's tasks (the findings stay,
        as the steps' own words do); how many there were."""
        owned = sa.select(tasks.c.id).where(tasks.c.owner == owner)
        result = await self._conn.execute(
            step_looks.update()
            .where(step_looks.c.task_id.in_(owned), step_looks.c.image.isnot(None))
            .values(image=None, media_type=None)
        )
        return result.rowcount or 0
