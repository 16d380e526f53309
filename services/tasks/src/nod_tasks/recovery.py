"""Boot reconcile and the sweeper (G12).

A RUNNING task, and each step in flight, belongs to the instance running
it. On boot, before SERVING, this instance's RUNNING tasks become
INTERRUPTED ("nod restarted while this task was running: check what
happened, or say continue") and its steps in flight end as their tools say
a cut-off one does (UNCERTAIN when it may have reached a site or app),
whatever their task's state now (a Stop may have come first). Nothing runs
again by itself. The sweeper does the same for instances whose lease
lapsed, never for a live one; a live instance does it for its own tasks it
lost track of (a take or an end whose commit lost its answer). A step
waiting for the person belongs to nobody: the person's answer, or the
task's end, ends it. Every end is then told to the other services
(app/endings.py).
"""

from nod_tasks.domain.steps import StepRecord
from nod_tasks.domain.tasks import INTERRUPTED, LOST_RUN, OWNER_GONE, Move
from nod_tasks.domain.tools import cut_off_end
from nod_tasks.store.database import Database, Transaction
from nod_tasks.store.tasks import Which
from nodkit.logging import get_logger
from nodkit.metrics import count_sweep

log = get_logger("nod_tasks.recovery")
CUT_OFF = "nod stopped while this step ran"


class Recovery:
    def __init__(self, db: Database, instance_id: str) -> None:
        self._db = db
        self._me = instance_id

    async def reconcile_own(self) -> int:
        async with self._db.transaction() as tx:
            steps = await tx.steps.in_flight_on(self._me)
            ended = await self._interrupt(tx, Which(running_on=self._me), INTERRUPTED, steps)
        count_sweep("tasks", "boot", ended)
        return ended

    async def interrupt_lost_runs(self, running_here: list[str]) -> int:
        """Tasks RUNNING on this live instance with no run here: a take whose
        commit lost its answer, or a run that ended without recording its
        task's end. Nothing runs them again: INTERRUPTED, as at a restart."""
        async with self._db.transaction() as tx:
            steps = [
                step
                for step in await tx.steps.in_flight_on(self._me)
                if step.task_id not in running_here
            ]
            which = Which(running_on=self._me, not_in=tuple(running_here))
            ended = await self._interrupt(tx, which, LOST_RUN, steps)
        count_sweep("tasks", "lost_runs", ended)
        return ended

    async def sweep_once(self) -> int:
        async with self._db.transaction() as tx:
            steps = await tx.steps.in_flight_on_lapsed()
            ended = await self._interrupt(tx, Which(run_by_lapsed=True), OWNER_GONE, steps)
        count_sweep("tasks", "sweep", ended)
        return ended

    async def _interrupt(
        self, tx: Transaction, which: Which, message: str, steps: list[StepRecord]
    ) -> int:
        # Steps first, then their tasks: the order a run's own step end takes
        # its locks in (the step's row, then its task's). The other order
        # deadlocked against a run still ending its step at shutdown.
        for step in steps:
            end = cut_off_end(step.tool, CUT_OFF)
            await tx.steps.end(step, end, in_flight_on=step.runner_instance)
        tasks = await tx.tasks.move(
            Move.INTERRUPT, which, actor=f"recovery:{self._me}", message=message
        )
        if tasks or steps:
            log.warning("tasks.interrupted", tasks=len(tasks), steps=len(steps), why=message)
        return len(tasks)
