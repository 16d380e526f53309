"""SQL for tasks and their events. Every change of state is a conditional
update whose returned rows say what changed, written in the same transaction
as its event; events are numbered per task by the task row's counter."""

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncConnection

from nod_tasks.domain.tasks import TaskRecord, TaskState, Wait
from nod_tasks.store.models import INSTANCE_LEASES, events, tasks
from nodkit import listing


def to_record(row: Any) -> TaskRecord:
    return TaskRecord(
        id=str(row.id),
        owner=row.owner,
        text=row.text,
        state=TaskState(row.state),
        message=row.message,
        wait=Wait.from_json(row.wait),
        run=row.run,
        steps=row.steps,
        session_id=row.session_id,
        runner_instance=row.runner_instance,
        forms=row.forms or {},
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


async def _log(
    conn: AsyncConnection, rows: list[Any], kind: str, data: dict[str, Any]
) -> list[TaskRecord]:
    """The event of a change just made to `rows` (which carry their new
    last_event number and state)."""
    if rows:
        await conn.execute(
            events.insert(),
            [
                {
                    "task_id": r.id,
                    "number": r.last_event,
                    "kind": kind,
                    "state": r.state,
                    "data": data,
                }
                for r in rows
            ],
        )
    return [to_record(r) for r in rows]


async def insert_task(
    conn: AsyncConnection, owner: str, text: str, request_id: str | None
) -> TaskRecord | None:
    """None when the person already started a task with this request id."""
    statement = (
        insert(tasks)
        .values(
            owner=owner,
            text=text,
            request_id=request_id,
            state=TaskState.QUEUED.value,
            last_event=1,
        )
        .on_conflict_do_nothing(index_elements=[tasks.c.owner, tasks.c.request_id])
        .returning(tasks)
    )
    rows = list(await conn.execute(statement))
    created = await _log(conn, rows, "task.queued", {"message": text})
    return created[0] if created else None


async def get_task(conn: AsyncConnection, owner: str, task_id: str) -> TaskRecord | None:
    row = (
        await conn.execute(sa.select(tasks).where(tasks.c.owner == owner, tasks.c.id == task_id))
    ).first()
    return to_record(row) if row else None


async def get_by_request(conn: AsyncConnection, owner: str, request_id: str) -> TaskRecord | None:
    query = sa.select(tasks).where(tasks.c.owner == owner, tasks.c.request_id == request_id)
    row = (await conn.execute(query)).first()
    return to_record(row) if row else None


async def list_tasks(
    conn: AsyncConnection, owner: str, state: TaskState | None, page: listing.PageRequest
) -> listing.Page[TaskRecord]:
    query = sa.select(tasks).where(tasks.c.owner == owner)
    if state is not None:
        query = query.where(tasks.c.state == state.value)
    return await listing.fetch_page(conn, query, tasks, page, to_record)


async def move(
    conn: AsyncConnection,
    *where: sa.ColumnElement[bool],
    to_state: TaskState,
    kind: str,
    data: dict[str, Any] | None = None,
    **values: Any,
) -> list[TaskRecord]:
    """Every task matching `where` (which must name the states it may leave)
    moves to `to_state`, each with its event."""
    if to_state != TaskState.RUNNING:
        values.setdefault("runner_instance", None)
    if to_state != TaskState.WAITING:
        values.setdefault("wait", None)
    statement = (
        tasks.update()
        .where(*where)
        .values(
            state=to_state.value,
            last_event=tasks.c.last_event + 1,
            updated_at=sa.func.now(),
            **values,
        )
        .returning(tasks)
    )
    rows = list(await conn.execute(statement))
    return await _log(conn, rows, kind, data or {})


async def add_event(conn: AsyncConnection, task_id: str, kind: str, data: dict[str, Any]) -> None:
    """An event that changes no state (a step, a model attempt)."""
    statement = (
        tasks.update()
        .where(tasks.c.id == task_id)
        .values(last_event=tasks.c.last_event + 1)
        .returning(tasks)
    )
    await _log(conn, list(await conn.execute(statement)), kind, data)


def in_state(*states: TaskState) -> sa.ColumnElement[bool]:
    return tasks.c.state.in_([s.value for s in states])


def one_task(task_id: str, owner: str | None = None) -> list[sa.ColumnElement[bool]]:
    where = [tasks.c.id == task_id]
    return [*where, tasks.c.owner == owner] if owner is not None else where


def run_by(instance_id: str) -> list[sa.ColumnElement[bool]]:
    return [tasks.c.state == TaskState.RUNNING.value, tasks.c.runner_instance == instance_id]


async def take_next_queued(conn: AsyncConnection, instance_id: str) -> TaskRecord | None:
    """The oldest queued task, now RUNNING on this instance, if this
    instance's lease is live (a lapsed one could be swept mid-run)."""
    oldest = (
        sa.select(tasks.c.id)
        .where(tasks.c.state == TaskState.QUEUED.value)
        .order_by(tasks.c.updated_at)
        .limit(1)
        .with_for_update(skip_locked=True)
        .scalar_subquery()
    )
    taken = await move(
        conn,
        tasks.c.id == oldest,
        tasks.c.state == TaskState.QUEUED.value,
        INSTANCE_LEASES.is_live(instance_id),
        to_state=TaskState.RUNNING,
        kind="task.running",
        runner_instance=instance_id,
    )
    return taken[0] if taken else None


async def still_running(conn: AsyncConnection, instance_id: str, task_ids: list[str]) -> set[str]:
    query = sa.select(tasks.c.id).where(tasks.c.id.in_(task_ids), *run_by(instance_id))
    return {str(row.id) for row in await conn.execute(query)}


async def waiting_for(
    conn: AsyncConnection,
    kinds: list[str],
    limit: int,
    after: tuple[datetime, str] | None = None,
) -> list[TaskRecord]:
    """Tasks of every person waiting for something outside (a decision, a
    payment), in (updated_at, id) order, after `after` when given."""
    waiting = sa.select(tasks).where(
        tasks.c.state == TaskState.WAITING.value, tasks.c.wait["kind"].astext.in_(kinds)
    )
    return await _in_turn(conn, waiting, limit, after)


async def cleanup_pending(
    conn: AsyncConnection, limit: int, after: tuple[datetime, str] | None = None
) -> list[TaskRecord]:
    """Stopped tasks whose Stop some service hasn't been told of yet, in
    (updated_at, id) order, after `after` when given."""
    return await _in_turn(conn, sa.select(tasks).where(tasks.c.cleanup_pending), limit, after)


async def _in_turn(
    conn: AsyncConnection, query: sa.Select, limit: int, after: tuple[datetime, str] | None
) -> list[TaskRecord]:
    if after is not None:
        at, task_id = after
        # Typed binds: an untyped id would be compared as text with a uuid.
        query = query.where(
            sa.tuple_(tasks.c.updated_at, tasks.c.id)
            > sa.tuple_(
                sa.literal(at, tasks.c.updated_at.type), sa.literal(task_id, tasks.c.id.type)
            )
        )
    query = query.order_by(tasks.c.updated_at, tasks.c.id).limit(limit)
    return [to_record(row) for row in await conn.execute(query)]


async def list_events(conn: AsyncConnection, task_id: str, after: int, limit: int) -> list[sa.Row]:
    query = (
        sa.select(events)
        .where(events.c.task_id == task_id, events.c.number > after)
        .order_by(events.c.number)
        .limit(limit)
    )
    return list(await conn.execute(query))


async def set_session(conn: AsyncConnection, task_id: str, session_id: str | None) -> None:
    await conn.execute(tasks.update().where(tasks.c.id == task_id).values(session_id=session_id))


async def mark_cleanup_pending(conn: AsyncConnection, task_id: str) -> None:
    await conn.execute(
        tasks.update()
        .where(tasks.c.id == task_id, tasks.c.state == TaskState.STOPPED.value)
        .values(cleanup_pending=True)
    )
