"""The queue, in PostgreSQL: each instance takes QUEUED tasks (FOR UPDATE
SKIP LOCKED, only while its lease is live) up to max_running at once, runs
each as an asyncio task, and cancels the runs whose task was stopped — by
this instance or another. No job is retried and no stalled run is run
again: a run cut off leaves its task INTERRUPTED, to the person's Continue.

Why not procrastinate or pgqueuer: both keep a job table of their own beside
which a task's state (WAITING on the person, INTERRUPTED, Continue) would be a
second truth, and recovery in both is about re-running stalled jobs, which
nod must never do; per-owner recovery with our leases is a few lines here."""

import asyncio
from collections.abc import Awaitable, Callable
from functools import partial

from nod_tasks.app.runs import Run, RunDeps
from nodkit.logging import get_logger
from nodkit.notices import Notices, first_announced

log = get_logger("nod_tasks.worker")
# After a look at the queue that failed (the database, a lost answer), or
# that passed over a task another transaction held.
LOOK_AGAIN_S = 1.0


class Worker:
    def __init__(
        self,
        deps: RunDeps,
        reconcile: Callable[[], Awaitable[int]],
        interrupt_lost: Callable[[list[str]], Awaitable[int]],
    ) -> None:
        """reconcile: this instance's running tasks INTERRUPTED, their steps
        ended; interrupt_lost: the same for those of them not running here."""
        self._deps = deps
        self._db = deps.db
        self._reconcile = reconcile
        self._interrupt_lost = interrupt_lost
        # A take or a run failed: a task may be RUNNING here with no run.
        self._may_have_lost_runs = False
        self._me = deps.settings.instance_id
        self._capacity = deps.settings.max_running
        self._runs: dict[str, asyncio.Task] = {}
        # Room for another run here.
        self._room = asyncio.Event()
        # The last look passed over a task it could have taken, locked by
        # another transaction that may announce nothing when it ends.
        self._passed_over = False

    @property
    def running(self) -> list[str]:
        return sorted(self._runs)

    async def take_work(self) -> int:
        taken = 0
        while len(self._runs) < self._capacity:
            try:
                async with self._db.transaction() as tx:
                    task = await tx.tasks.take_next_queued(self._me)
                    self._passed_over = task is None and await tx.tasks.any_takeable()
            except BaseException:
                # Its commit may have gone through with only the answer lost.
                self._may_have_lost_runs = True
                raise
            if task is None:
                break
            run = asyncio.ensure_future(Run(self._deps, task).go())
            self._runs[task.id] = run
            run.add_done_callback(partial(self._finished, task.id))
            taken += 1
        return taken

    def _finished(self, task_id: str, run: asyncio.Task) -> None:
        self._runs.pop(task_id, None)
        self._room.set()
        if not run.cancelled() and run.exception() is not None:
            log.error("run.failed", task_id=task_id, exc_info=run.exception())
            self._may_have_lost_runs = True

    async def cancel_stopped(self) -> None:
        """Runs whose task no longer runs here (a Stop made elsewhere)."""
        if not self._runs:
            return
        async with self._db.reads() as tx:
            alive = await tx.tasks.still_running(self._me, list(self._runs))
        self.interrupt([task_id for task_id in self._runs if task_id not in alive])

    def interrupt(self, task_ids: list[str]) -> None:
        for task_id in task_ids:
            if (run := self._runs.get(task_id)) is not None:
                run.cancel()

    async def poll(self) -> None:
        await self.cancel_stopped()
        if self._may_have_lost_runs:
            # Between here and the take below nothing else takes a task, so
            # every task RUNNING here without a run is one whose run was lost.
            await self._interrupt_lost(self.running)
            self._may_have_lost_runs = False
        await self.take_work()

    async def run(self, queue: Notices, fallback_s: float) -> None:
        """Looks when a task is queued or stopped on any instance, when a run
        here ends, and every fallback_s regardless; until cancelled. A look
        that failed, or that passed over a queued task another transaction
        held, is taken again soon, not at the next fallback."""
        with queue.listen("queued") as queued, queue.listen("stopped") as stopped:
            wakes = (queued, stopped, self._room)
            while True:
                for wake in wakes:
                    wake.clear()  # before the look: a later change wakes the wait below
                try:
                    await self.poll()
                    look_soon = self._passed_over
                except Exception as error:
                    log.error("queue.failed", exc_info=error)
                    look_soon = True
                next_look_s = min(fallback_s, LOOK_AGAIN_S) if look_soon else fallback_s
                await first_announced(wakes, next_look_s)

    async def shutdown(self) -> None:
        """The tasks still running here are INTERRUPTED first (so their runs,
        cut off next, move them nowhere), with their steps in flight ended."""
        if self._runs:
            await self._reconcile()
        runs = list(self._runs.values())
        for run in runs:
            run.cancel()
        await asyncio.gather(*runs, return_exceptions=True)
