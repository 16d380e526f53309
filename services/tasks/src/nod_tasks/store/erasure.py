"""SQL that erases the words of a removed person's ended tasks: what they
asked and said, what nod wrote back, what steps carried and found, and the
model's transcript. The rows stay, so what the promise needs stays with
them: each task's state, its steps' tools, states and a check's result,
and the ids of the claims, approvals and payments they made.

Only a task that has ended and whose end every other service has heard
(cleanup_pending cleared) is erased: the telling reads its steps'
arguments to settle a cut-off payment, and a task still going would write
new words after the erasure."""

from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.ext.asyncio import AsyncConnection

from nod_tasks.domain.tasks import ENDED_STATES
from nod_tasks.store.models import (
    continue_requests,
    events,
    step_looks,
    step_screenshots,
    steps,
    tasks,
    transcript,
)

EMPTY_OBJECT = sa.cast(sa.literal("{}"), JSONB)


@dataclass(frozen=True)
class WordsErased:
    # Tasks that had words to erase.
    erased: int
    # Tasks whose words are kept for now: not ended, or their end not yet told.
    still_going: list[str]


async def erase_words_of(conn: AsyncConnection, owner: str) -> WordsErased:
    ended = [state.value for state in ENDED_STATES]
    owned = tasks.c.owner == owner
    settled = sa.and_(owned, tasks.c.state.in_(ended), sa.not_(tasks.c.cleanup_pending))
    # Locked first: a Continue can't begin on one while its words go.
    rows = await conn.execute(
        sa.select(tasks.c.id, settled.label("settled")).where(owned).with_for_update()
    )
    by_state = rows.all()
    still_going = sorted(str(row.id) for row in by_state if not row.settled)
    settled_ids = [str(row.id) for row in by_state if row.settled]
    if not settled_ids:
        return WordsErased(0, still_going)
    # A task's rows lose their words in this one transaction, so a task
    # whose own row has none left has nothing left anywhere: a second call
    # (nodctl's, while another task is still ending) rewrites nothing.
    with_words = sa.or_(tasks.c.text != "", tasks.c.message != "", tasks.c.forms != EMPTY_OBJECT)
    erased = await conn.execute(
        tasks.update()
        .where(tasks.c.id.in_(settled_ids), with_words)
        .values(text="", message="", forms=EMPTY_OBJECT)
        .returning(tasks.c.id)
    )
    ids = [str(task_id) for task_id in erased.scalars()]
    if not ids:
        return WordsErased(0, still_going)
    await conn.execute(
        continue_requests.update().where(continue_requests.c.task_id.in_(ids)).values(text="")
    )
    await conn.execute(
        steps.update()
        .where(steps.c.task_id.in_(ids))
        .values(arguments=EMPTY_OBJECT, result=None, reason="")
    )
    await conn.execute(events.update().where(events.c.task_id.in_(ids)).values(data=EMPTY_OBJECT))
    for table in (step_looks, step_screenshots, transcript):
        await conn.execute(table.delete().where(table.c.task_id.in_(ids)))
    return WordsErased(len(ids), still_going)
