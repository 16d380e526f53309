"""SQL for steps (tool calls) and the transcript. A step is numbered by its
task's counter and starts only while its task is RUNNING on this instance, so
a stopped task starts nothing; it ends once, from RUNNING."""

from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from nod_tasks.domain.prompt import tool_result
from nod_tasks.domain.steps import Resolution, StepEnd, StepRecord, StepState
from nod_tasks.store import tasks as task_store
from nod_tasks.store.models import steps, tasks, transcript


def to_record(row: Any) -> StepRecord:
    return StepRecord(
        task_id=str(row.task_id),
        number=row.number,
        call_id=row.call_id,
        tool=row.tool,
        arguments=row.arguments,
        state=StepState(row.state),
        result=row.result,
        reason=row.reason,
        claim_id=row.claim_id,
        approval_id=row.approval_id,
        payment_id=row.payment_id,
        resolution=Resolution(row.resolution) if row.resolution else None,
        started_at=row.started_at,
        ended_at=row.ended_at,
    )


def step_data(record: StepRecord) -> dict[str, Any]:
    return {"step": record.to_json()}


async def start(
    conn: AsyncConnection,
    task_id: str,
    instance_id: str,
    call_id: str,
    tool: str,
    arguments: dict[str, Any],
) -> StepRecord | None:
    """The next step, RUNNING; None if the task no longer runs here."""
    numbered = (
        tasks.update()
        .where(tasks.c.id == task_id, *task_store.run_by(instance_id))
        .values(steps=tasks.c.steps + 1)
        .returning(tasks.c.steps)
    )
    number = (await conn.execute(numbered)).scalar_one_or_none()
    if number is None:
        return None
    row = (
        await conn.execute(
            steps.insert()
            .values(
                task_id=task_id,
                number=number,
                call_id=call_id[:200],
                tool=tool,
                arguments=arguments,
                state=StepState.RUNNING.value,
            )
            .returning(steps)
        )
    ).one()
    record = to_record(row)
    await task_store.add_event(conn, task_id, "step.started", step_data(record))
    return record


async def end(
    conn: AsyncConnection, task_id: str, number: int, outcome: StepEnd
) -> StepRecord | None:
    """RUNNING -> its end, once, and the model is told (the transcript gets
    the result under the call's id, so no call is ever left unanswered).
    None if it had already ended."""
    row = (
        await conn.execute(
            steps.update()
            .where(
                steps.c.task_id == task_id,
                steps.c.number == number,
                steps.c.state == StepState.RUNNING.value,
            )
            .values(
                state=outcome.state.value,
                result=outcome.result,
                reason=outcome.reason,
                claim_id=outcome.claim_id,
                approval_id=outcome.approval_id,
                payment_id=outcome.payment_id,
                ended_at=sa.func.now(),
            )
            .returning(steps)
        )
    ).first()
    if row is None:
        return None
    record = to_record(row)
    await task_store.add_event(conn, task_id, "step.ended", step_data(record))
    await append_transcript(conn, task_id, tool_result(record.call_id, number, outcome.result))
    return record


async def note(conn: AsyncConnection, task_id: str, number: int, **values: Any) -> None:
    """Ids a RUNNING step made before it ends (a proposal waiting for its yes)."""
    await conn.execute(
        steps.update()
        .where(steps.c.task_id == task_id, steps.c.number == number, steps.c.state == "running")
        .values(**values)
    )


async def resolve(
    conn: AsyncConnection, task_id: str, number: int, resolution: Resolution
) -> StepRecord | None:
    """What the person found, beside the UNCERTAIN state (which stays)."""
    row = (
        await conn.execute(
            steps.update()
            .where(
                steps.c.task_id == task_id,
                steps.c.number == number,
                steps.c.state == StepState.UNCERTAIN.value,
                steps.c.resolution.is_(None),
            )
            .values(resolution=resolution.value)
            .returning(steps)
        )
    ).first()
    if row is None:
        return None
    record = to_record(row)
    await task_store.add_event(conn, task_id, "step.resolved", step_data(record))
    return record


async def end_running_of(conn: AsyncConnection, task_ids: list[str], outcome: StepEnd) -> int:
    """The RUNNING steps of tasks cut off (a restart, a dead instance)."""
    ended = 0
    query = sa.select(steps.c.task_id, steps.c.number).where(
        steps.c.task_id.in_(task_ids), steps.c.state == StepState.RUNNING.value
    )
    for row in list(await conn.execute(query)):
        ended += await end(conn, str(row.task_id), row.number, outcome) is not None
    return ended


async def list_steps(conn: AsyncConnection, task_id: str) -> list[StepRecord]:
    query = sa.select(steps).where(steps.c.task_id == task_id).order_by(steps.c.number)
    return [to_record(row) for row in await conn.execute(query)]


async def get_step(conn: AsyncConnection, task_id: str, number: int) -> StepRecord | None:
    query = sa.select(steps).where(steps.c.task_id == task_id, steps.c.number == number)
    row = (await conn.execute(query)).first()
    return to_record(row) if row else None


async def append_transcript(conn: AsyncConnection, task_id: str, *entries: dict[str, Any]) -> None:
    await conn.execute(transcript.insert(), [{"task_id": task_id, "entry": e} for e in entries])


async def read_transcript(conn: AsyncConnection, task_id: str) -> list[dict[str, Any]]:
    query = (
        sa.select(transcript.c.entry)
        .where(transcript.c.task_id == task_id)
        .order_by(transcript.c.id)
    )
    return [row.entry for row in await conn.execute(query)]
