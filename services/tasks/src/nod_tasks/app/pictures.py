"""The picture of each page step, kept for the person (never the model).

After a step that changed or read a page, the browser's Screenshot (every
private field and shown-back value painted over) is taken in the
background while the step's end is written and the model is asked for the
next step; the run waits for it only before its next tool call, its end
or its wait (so the session is still open), NOD_TASKS_SCREENSHOT_TIMEOUT_S
at most. A picture that fails or is late is left out, said in a log line;
none ever fails or holds up a step beyond that bound. Past the task's cap
(NOD_TASKS_SCREENSHOT_BYTES_PER_TASK) no more are taken in the run."""

import asyncio

from nod_tasks.adapters.peers import Peers
from nod_tasks.domain.pictures import PAGE_TOOLS
from nod_tasks.domain.steps import StepRecord
from nod_tasks.domain.tasks import TaskRecord
from nod_tasks.settings import TasksSettings
from nod_tasks.store.database import Database
from nodkit.client import NodRpcError
from nodkit.logging import get_logger

log = get_logger("nod_tasks.pictures")


class StepPictures:
    """One run's pictures: at most one being taken at a time."""

    def __init__(
        self, db: Database, peers: Peers, settings: TasksSettings, task: TaskRecord
    ) -> None:
        self._db = db
        self._peers = peers
        self._settings = settings
        self._task = task
        self._taking: asyncio.Future[None] | None = None
        # The task's pictures reached their cap: none more in this run.
        self._full = settings.screenshot_bytes_per_task == 0

    def take(self, step: StepRecord, session_id: str | None) -> None:
        """The step's picture, in the background, if it is a page step."""
        if step.tool not in PAGE_TOOLS or self._full or not session_id:
            return
        self._taking = asyncio.ensure_future(self._keep(step.number, session_id))

    async def taken(self) -> None:
        """The picture being taken, if one is; it never raises."""
        taking, self._taking = self._taking, None
        if taking is not None:
            await taking

    def drop(self) -> None:
        """The run was cut off: a picture still being taken is let go."""
        taking, self._taking = self._taking, None
        if taking is not None:
            taking.cancel()

    async def _keep(self, number: int, session_id: str) -> None:
        settings, task = self._settings, self._task
        began = asyncio.get_running_loop().time()
        try:
            async with asyncio.timeout(settings.screenshot_timeout_s):
                picture = await self._peers.browser.screenshot(
                    task.owner, session_id, timeout_s=settings.screenshot_timeout_s
                )
                kept = await self._db.keep_screenshot(
                    task.id, number, picture, settings.screenshot_bytes_per_task
                )
        except (TimeoutError, NodRpcError) as error:
            why = "it took too long" if isinstance(error, TimeoutError) else str(error)
            log.warning("step.screenshot_not_kept", task_id=task.id, step=number, why=why)
            return
        except Exception:
            log.exception("step.screenshot_failed", task_id=task.id, step=number)
            return
        if not kept:
            self._full = True
            log.info(
                "step.screenshots_over_cap",
                task_id=task.id,
                step=number,
                cap_bytes=settings.screenshot_bytes_per_task,
                note="this task's later page pictures are not kept",
            )
            return
        taken_ms = round((asyncio.get_running_loop().time() - began) * 1000)
        log.info(
            "step.screenshot_kept",
            task_id=task.id,
            step=number,
            bytes=len(picture.image),
            taken_ms=taken_ms,
        )
