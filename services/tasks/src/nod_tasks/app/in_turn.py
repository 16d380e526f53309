"""Background rounds that go through many tasks a batch at a time: the
waits on other services (waits.py) and the ended tasks whose end is still
to be told (endings.py). Each round takes the next batch on a keyset cursor over
(updated_at, id) and starts again from the oldest after the last one, so
every task gets its turn however many there are, even when the same ones
fail round after round. A few tasks are handled at once; one task's error
is logged and never ends the round for the others."""

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from datetime import datetime

from nod_tasks.domain.tasks import TaskRecord
from nod_tasks.store.database import Database, Transaction
from nodkit.logging import get_logger

log = get_logger("nod_tasks.in_turn")
# Tasks handled at once within a round (each asks a peer, then writes).
AT_ONCE = 4

Cursor = tuple[datetime, str]
Fetch = Callable[[Transaction, int, Cursor | None], Awaitable[list[TaskRecord]]]


class InTurn:
    def __init__(self, db: Database, fetch: Fetch, *, batch: int) -> None:
        self._db = db
        self._fetch = fetch
        self._batch = batch
        # Where the next round goes on from, or None to start from the oldest.
        self._after: Cursor | None = None
        # The last round started from the oldest and found nothing at all:
        # there is nothing to go round until something new is announced.
        self.found_none = False

    async def next_batch(self) -> list[TaskRecord]:
        async with self._db.reads() as tx:
            batch = await self._fetch(tx, self._batch, self._after)
        self.found_none = self._after is None and not batch
        last = batch[-1] if len(batch) == self._batch else None
        self._after = (last.updated_at, last.id) if last else None
        return batch

    @property
    def more_after(self) -> bool:
        """The last batch was full: the next round goes on after it."""
        return self._after is not None


async def each_few_at_once(
    tasks: Iterable[TaskRecord], handle: Callable[[TaskRecord], Awaitable[bool]], event: str
) -> int:
    """handle(task) for every task, AT_ONCE at a time; how many returned True.
    A task whose handling raised is logged as `event` and counts as not done."""
    tasks = list(tasks)
    turns = asyncio.Semaphore(AT_ONCE)

    async def one(task: TaskRecord) -> bool:
        async with turns:
            return await handle(task)

    # A cancelled round still raises here (gather passes its own cancellation on).
    outcomes = await asyncio.gather(*(one(task) for task in tasks), return_exceptions=True)
    for task, outcome in zip(tasks, outcomes, strict=True):
        if isinstance(outcome, BaseException):
            log.error(event, task_id=task.id, exc_info=outcome)
    return sum(outcome is True for outcome in outcomes)
