"""Boot reconcile and the sweeper (G12).

A RUNNING task belongs to the instance running it. On boot, before SERVING,
this instance's RUNNING tasks become INTERRUPTED ("nod restarted while this
task was running: check what happened, or say continue") and their RUNNING
steps UNCERTAIN; nothing runs again by itself. The sweeper does the same for
instances whose lease lapsed, never for a live one. WAITING tasks belong to
nobody: nothing is in flight, and the person's answer moves them on.
"""

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from nod_tasks.domain import steps
from nod_tasks.domain.tasks import INTERRUPTED, OWNER_GONE, TaskState
from nod_tasks.store import steps as step_store
from nod_tasks.store import tasks as task_store
from nod_tasks.store.models import INSTANCE_LEASES, tasks
from nodkit.logging import get_logger

log = get_logger("nod_tasks.recovery")
CUT_OFF = "nod stopped while this step ran"


async def interrupt(engine: AsyncEngine, where: list[sa.ColumnElement[bool]], message: str) -> int:
    async with engine.begin() as conn:
        ended = await task_store.move(
            conn,
            *where,
            to_state=TaskState.INTERRUPTED,
            kind="task.ended",
            data={"message": message},
            message=message,
        )
        cut = await step_store.end_running_of(conn, [t.id for t in ended], steps.uncertain(CUT_OFF))
    if ended:
        log.warning("tasks.interrupted", tasks=len(ended), steps=cut, why=message)
    return len(ended)


async def reconcile_own(engine: AsyncEngine, instance_id: str) -> int:
    return await interrupt(engine, task_store.run_by(instance_id), INTERRUPTED)


async def sweep_once(engine: AsyncEngine) -> int:
    lapsed = [
        tasks.c.state == TaskState.RUNNING.value,
        INSTANCE_LEASES.lapsed(tasks.c.runner_instance),
    ]
    return await interrupt(engine, lapsed, OWNER_GONE)
