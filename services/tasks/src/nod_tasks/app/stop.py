"""Stop (G11): the person's running, queued and waiting tasks (or one) end
STOPPED at once, in one statement; runs on this instance are cut off at
once, other instances' within a poll. Then the other services are told
(app/endings.py): pending decisions and payments cancelled, the task's
browser sessions closed, its private entries discarded. Stop's answer
waits for that at most TOLD_WITHIN_S; the telling goes on behind it and is
retried until done, so a late yes finds its approval cancelled. Stop can't
undo anything that already reached a website or app."""

import asyncio
from collections.abc import Callable

from nod_tasks.app.endings import Endings
from nod_tasks.domain.tasks import STOPPED, Move, TaskRecord
from nod_tasks.store.database import Database
from nod_tasks.store.tasks import Which
from nodkit import faults
from nodkit.errors import NotFound
from nodkit.logging import get_logger

log = get_logger("nod_tasks.stop")
# Stop answers once every service was told, or after this long (inside the
# gateway's 5 s call deadline), the telling going on behind the answer.
TOLD_WITHIN_S = 3.0


class Stopper:
    def __init__(
        self, db: Database, endings: Endings, interrupt: Callable[[list[str]], None]
    ) -> None:
        self._db = db
        self._endings = endings
        self._interrupt = interrupt

    async def stop(self, owner: str, task_id: str | None) -> list[TaskRecord]:
        """The tasks it stopped; another person's task (or none) is NOT_FOUND."""
        async with self._db.transaction() as tx:
            if task_id is not None and await tx.tasks.get(owner, task_id) is None:
                raise NotFound("no such task", reason="TASK_NOT_FOUND")
            which = Which(owner=owner, task_id=task_id)
            stopped = await tx.tasks.move(Move.STOP, which, actor=owner, message=STOPPED)
        await faults.point("tasks.stop_received")
        self._interrupt([t.id for t in stopped])
        telling = self._endings.tell_detached(stopped)
        # The tasks are stopped: the answer doesn't wait for a service that
        # hangs (closing a session lets a cut-off entry settle first) past
        # the caller's patience. What is left is told on, or retried.
        await asyncio.wait({telling}, timeout=TOLD_WITHIN_S)
        log.info("tasks.stopped", count=len(stopped), still_telling=not telling.done())
        return stopped
