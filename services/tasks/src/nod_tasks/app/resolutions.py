"""A wait answered: the task leaves WAITING (a conditional update on what it
waits for, so of two answers only one counts and a stopped task takes none),
its waiting step ends with the answer, and the model is told."""

from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from nod_tasks.app.runs import check_wait
from nod_tasks.domain.prompt import person_said
from nod_tasks.domain.steps import StepEnd, StepState
from nod_tasks.domain.tasks import TaskRecord, TaskState, Wait
from nod_tasks.store import steps as step_store
from nod_tasks.store import tasks as task_store
from nod_tasks.store.models import tasks


def waiting_for(task_id: str, wait: Wait) -> list:
    return [
        *task_store.one_task(task_id),
        tasks.c.state == TaskState.WAITING.value,
        tasks.c.wait["kind"].astext == wait.kind.value,
        tasks.c.wait["id"].astext == wait.id,
    ]


async def answer_wait(
    conn: AsyncConnection,
    task: TaskRecord,
    wait: Wait,
    *,
    step_end: StepEnd | None = None,
    note: str | None = None,
    event: dict[str, Any] | None = None,
    **values: Any,
) -> TaskRecord | None:
    """None if the task no longer waits for this (answered already, stopped)."""
    next_wait = None
    if step_end is not None and step_end.state == StepState.UNCERTAIN and wait.step:
        next_wait = check_wait(wait.step, step_end.reason)
    moved = await task_store.move(
        conn,
        *waiting_for(task.id, wait),
        to_state=TaskState.WAITING if next_wait else TaskState.QUEUED,
        kind="task.waiting" if next_wait else "task.queued",
        data={"wait": next_wait.to_json()} if next_wait else (event or {}),
        wait=next_wait.to_json() if next_wait else None,
        **values,
    )
    if not moved:
        return None
    if step_end is not None and wait.step:
        await step_store.end(conn, task.id, wait.step, step_end)
    if note:
        await step_store.append_transcript(conn, task.id, person_said(note))
    return moved[0]
