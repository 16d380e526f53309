"""SQL for tasks and their events. Every change of state is one move of the
domain's table (domain.tasks.TRANSITIONS), made by nodkit.history.move: a
conditional update from each state the move may leave, with its event
written in the same statement; events are numbered per task by the task
row's counter."""

from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncConnection

from nod_tasks.domain.steps import StepState
from nod_tasks.domain.tasks import (
    ENDED_STATES,
    TRANSITIONS,
    FilledForm,
    Move,
    TaskRecord,
    TaskState,
    Wait,
)
from nod_tasks.store.models import (
    INSTANCE_LEASES,
    TASK_HISTORY,
    continue_requests,
    events,
    steps,
    tasks,
)
from nod_tasks.store.records import form_to_json, to_task, wait_to_json
from nodkit import history, listing, tracing

Cursor = tuple[datetime, str]
# The ended states whose task may keep its browser session for a look: a
# stopped task's sessions close at once.
KEEPING_STATES = [state.value for state in ENDED_STATES if state != TaskState.STOPPED]
# Ended in one of them, and its end told (a Continue's run is not yet begun).
_MAY_KEEP = sa.and_(tasks.c.state.in_(KEEPING_STATES), sa.not_(tasks.c.cleanup_pending))


@dataclass(frozen=True)
class Which:
    """Which tasks a move is for: every condition given must hold."""

    task_id: str | None = None
    owner: str | None = None
    # RUNNING on this instance.
    running_on: str | None = None
    # RUNNING on an instance whose lease lapsed (or that never had one).
    run_by_lapsed: bool = False
    # Still WAITING for exactly this (of two answers, only one counts).
    waiting_for: Wait | None = None
    # In exactly this state (as it was read before the move was decided).
    state: TaskState | None = None
    # None of these tasks.
    not_in: tuple[str, ...] = ()

    def where(self) -> list[sa.ColumnElement[bool]]:
        where: list[sa.ColumnElement[bool]] = []
        if self.task_id is not None:
            where.append(tasks.c.id == self.task_id)
        if self.owner is not None:
            where.append(tasks.c.owner == self.owner)
        if self.running_on is not None:
            where += run_by(self.running_on)
        if self.run_by_lapsed:
            where += [
                tasks.c.state == TaskState.RUNNING.value,
                INSTANCE_LEASES.lapsed(tasks.c.runner_instance),
            ]
        if self.waiting_for is not None:
            wait = self.waiting_for
            where += [
                tasks.c.state == TaskState.WAITING.value,
                tasks.c.wait["kind"].astext == wait.kind.value,
                tasks.c.wait["id"].astext == wait.id,
            ]
        if self.state is not None:
            where.append(tasks.c.state == self.state.value)
        if self.not_in:
            where.append(tasks.c.id.not_in(self.not_in))
        if not where:
            raise ValueError("a move names the tasks it is for")
        return where


class Telling(Enum):
    """Who tells an ended task's end to the other services."""

    TAKEN = "taken"  # this instance, now
    # Another live instance is telling it (or this one's own lease lapsed).
    BY_ANOTHER = "by another"
    TOLD = "told"  # nobody: it was told already


# A queued task whose last end has been told: the queue may take it.
TAKEABLE = (tasks.c.state == TaskState.QUEUED.value, sa.not_(tasks.c.cleanup_pending))


class TaskRows:
    def __init__(self, conn: AsyncConnection) -> None:
        self._conn = conn

    async def insert(self, owner: str, text: str, request_id: str | None) -> TaskRecord | None:
        """A new QUEUED task with its first event; None when the person
        already started one with this request id."""
        statement = (
            insert(tasks)
            .values(
                owner=owner,
                text=text,
                request_id=request_id,
                state=TaskState.QUEUED.value,
                last_event=1,
                traceparent=tracing.traceparent(),
            )
            .on_conflict_do_nothing(index_elements=[tasks.c.owner, tasks.c.request_id])
            .returning(tasks)
        )
        row = (await self._conn.execute(statement)).first()
        if row is None:
            return None
        await self._conn.execute(
            events.insert().values(
                task_id=row.id,
                number=1,
                kind="task.queued",
                state=row.state,
                actor=owner,
                data={"message": text, "person_words": ""},
            )
        )
        return to_task(row)

    async def get(self, owner: str, task_id: str) -> TaskRecord | None:
        query = sa.select(tasks).where(tasks.c.owner == owner, tasks.c.id == task_id)
        row = (await self._conn.execute(query)).first()
        return to_task(row) if row else None

    async def get_by_request(self, owner: str, request_id: str) -> TaskRecord | None:
        query = sa.select(tasks).where(tasks.c.owner == owner, tasks.c.request_id == request_id)
        row = (await self._conn.execute(query)).first()
        return to_task(row) if row else None

    async def record_continue(self, owner: str, request_id: str, task_id: str, text: str) -> bool:
        """True when the request id is new and now names this Continue; False
        when an earlier Continue holds it. A racing insert of the same id is
        waited for (the primary key), so the loser reads the winner's row."""
        statement = (
            insert(continue_requests)
            .values(owner=owner, request_id=request_id, task_id=task_id, text=text)
            .on_conflict_do_nothing(
                index_elements=[continue_requests.c.owner, continue_requests.c.request_id]
            )
            .returning(continue_requests.c.request_id)
        )
        return (await self._conn.execute(statement)).first() is not None

    async def continue_request(self, owner: str, request_id: str) -> tuple[str, str] | None:
        """(task id, text) of the Continue made with this request id."""
        query = sa.select(continue_requests.c.task_id, continue_requests.c.text).where(
            continue_requests.c.owner == owner, continue_requests.c.request_id == request_id
        )
        row = (await self._conn.execute(query)).first()
        return (str(row.task_id), row.text) if row else None

    async def page_of(
        self, owner: str, state: TaskState | None, page: listing.PageRequest
    ) -> listing.Page[TaskRecord]:
        query = sa.select(tasks).where(tasks.c.owner == owner)
        if state is not None:
            query = query.where(tasks.c.state == state.value)
        return await listing.fetch_page(self._conn, query, tasks, page, to_task)

    async def move(
        self,
        move: Move,
        which: Which,
        *,
        actor: str,
        message: str | None = None,
        note: str | None = None,
        person_words: str = "",
        wait: Wait | None = None,
        add_form: tuple[str, FilledForm] | None = None,
        new_run: bool = False,
    ) -> list[TaskRecord]:
        """Every task `which` names makes `move`, from whichever state it may
        leave, each with its event, which carries the wait and `note` (else
        the task's new `message`). Entering an ended state leaves the other
        services to be told (cleanup_pending); leaving RUNNING clears the
        runner."""
        return await self._move(
            move,
            *which.where(),
            actor=actor,
            message=message,
            note=note,
            person_words=person_words,
            wait=wait,
            add_form=add_form,
            new_run=new_run,
        )

    async def _move(
        self,
        move: Move,
        *where: sa.ColumnElement[bool],
        actor: str,
        message: str | None = None,
        note: str | None = None,
        person_words: str = "",
        wait: Wait | None = None,
        add_form: tuple[str, FilledForm] | None = None,
        new_run: bool = False,
        runner: str | None = None,
    ) -> list[TaskRecord]:
        transition = TRANSITIONS[move]
        enters = transition.enters
        changes: dict[str, Any] = {"last_event": tasks.c.last_event + 1}
        if runner is not None:
            changes["runner_instance"] = runner
        if add_form is not None:
            changes["forms"] = _form_added(*add_form)
        if new_run:
            changes["run"] = tasks.c.run + 1
        if enters != TaskState.RUNNING:
            changes.setdefault("runner_instance", None)
        changes["wait"] = wait_to_json(wait) if enters == TaskState.WAITING else None
        if message is not None:
            changes["message"] = message
        if enters in ENDED_STATES:
            changes["cleanup_pending"] = True
        if enters == TaskState.QUEUED:
            # The run to come continues the trace of the call that queued it.
            changes["traceparent"] = tracing.traceparent()
        data: dict[str, Any] = {}
        if wait is not None:
            data["wait"] = wait_to_json(wait)
        if note is not None or message is not None:
            data["message"] = note if note is not None else message
        # Always written, even empty: an event without it is one from before
        # it was (store.records reads those the old way).
        data["person_words"] = person_words
        leaves = frozenset(state.value for state in transition.leaves)
        rows = await history.move(
            self._conn,
            tasks,
            TASK_HISTORY,
            *where,
            from_state=next(iter(leaves)) if len(leaves) == 1 else leaves,
            to_state=enters.value,
            actor=actor,
            values=changes,
            written={"kind": transition.event, "data": data},
        )
        return [to_task(row) for row in rows]

    async def take_next_queued(self, instance_id: str) -> TaskRecord | None:
        """The oldest queued task, now RUNNING on this instance, if this
        instance's lease is live (a lapsed one could be swept mid-run). A
        task whose last end is still being told to the other services waits
        in the queue until that is done: the telling cancels what the task
        left open, and must not cancel what its next run makes."""
        oldest = (
            sa.select(tasks.c.id)
            .where(*TAKEABLE)
            .order_by(tasks.c.updated_at)
            .limit(1)
            .with_for_update(skip_locked=True)
            .scalar_subquery()
        )
        taken = await self._move(
            Move.TAKE,
            tasks.c.id == oldest,
            INSTANCE_LEASES.is_live(instance_id),
            actor=instance_id,
            runner=instance_id,
        )
        return taken[0] if taken else None

    async def any_takeable(self) -> bool:
        """Whether a queued task may be taken now, locked or not: one that
        take_next_queued passed over while another transaction held it."""
        takeable = sa.select(tasks.c.id).where(*TAKEABLE)
        return bool(await self._conn.scalar(sa.select(takeable.exists())))

    async def still_running(self, instance_id: str, task_ids: list[str]) -> set[str]:
        query = sa.select(tasks.c.id).where(tasks.c.id.in_(task_ids), *run_by(instance_id))
        return {str(row.id) for row in await self._conn.execute(query)}

    async def waiting_for(
        self, kinds: list[str], limit: int, after: Cursor | None = None
    ) -> list[TaskRecord]:
        """Tasks of every person waiting for something outside (a decision,
        a payment), in (updated_at, id) order, after `after` when given."""
        waiting = sa.select(tasks).where(
            tasks.c.state == TaskState.WAITING.value, tasks.c.wait["kind"].astext.in_(kinds)
        )
        return await self._in_turn(waiting, limit, after)

    async def to_tell(self, limit: int, after: Cursor | None = None) -> list[TaskRecord]:
        """Ended tasks the other services haven't all been told of yet."""
        return await self._in_turn(sa.select(tasks).where(tasks.c.cleanup_pending), limit, after)

    async def _in_turn(
        self, query: sa.Select, limit: int, after: Cursor | None
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
        return [to_task(row) for row in await self._conn.execute(query)]

    async def take_telling(self, task_id: str, instance_id: str) -> Telling:
        """This instance tells the task's end, unless it was told or another
        live instance is telling it now. Only a row still to be told is
        written (and locked): a lock held on a queued task hides it from
        the queue's look (SKIP LOCKED)."""
        taken = await self._conn.scalar(
            tasks.update()
            .where(
                tasks.c.id == task_id,
                tasks.c.cleanup_pending,
                INSTANCE_LEASES.is_live(instance_id),
                sa.or_(
                    tasks.c.teller_instance.is_(None),
                    tasks.c.teller_instance == instance_id,
                    INSTANCE_LEASES.lapsed(tasks.c.teller_instance),
                ),
            )
            .values(teller_instance=instance_id)
            .returning(tasks.c.id)
        )
        if taken is not None:
            return Telling.TAKEN
        to_tell = sa.select(tasks.c.cleanup_pending).where(tasks.c.id == task_id)
        return Telling.BY_ANOTHER if await self._conn.scalar(to_tell) else Telling.TOLD

    async def told(self, task_id: str, instance_id: str) -> bool:
        """Every service heard of the task's end from this instance's
        telling; False when it was no longer this instance's to tell (its
        lease lapsed and another took it over, or it was told meanwhile)."""
        done = await self._conn.scalar(
            tasks.update()
            .where(
                tasks.c.id == task_id,
                tasks.c.cleanup_pending,
                tasks.c.teller_instance == instance_id,
            )
            .values(cleanup_pending=False, teller_instance=None)
            .returning(tasks.c.id)
        )
        return done is not None

    async def kept_sessions(self, owner: str) -> list[tuple[str, str]]:
        """(task id, session id) of the person's ended tasks (told, not
        stopped) that keep their browser session for a look: a step of
        theirs may have happened and nobody has checked. The newest first."""
        unchecked = sa.exists().where(
            steps.c.task_id == tasks.c.id,
            steps.c.state == StepState.UNCERTAIN.value,
            steps.c.resolution.is_(None),
        )
        rows = await self._conn.execute(
            sa.select(tasks.c.id, tasks.c.session_id)
            .where(tasks.c.owner == owner, tasks.c.session_id.is_not(None), _MAY_KEEP, unchecked)
            .order_by(tasks.c.updated_at.desc(), tasks.c.id)
        )
        return [(row.id, row.session_id) for row in rows]

    async def let_go_of_session(self, task_id: str, session_id: str) -> bool:
        """The task no longer names its kept session, if it still names it
        and is still ended (a Continue's run opens or keeps its own)."""
        done = await self._conn.scalar(
            tasks.update()
            .where(
                tasks.c.id == task_id,
                tasks.c.session_id == session_id,
                _MAY_KEEP,
            )
            .values(session_id=None)
            .returning(tasks.c.id)
        )
        return done is not None

    async def set_session(self, task_id: str, session_id: str | None) -> None:
        await self._conn.execute(
            tasks.update().where(tasks.c.id == task_id).values(session_id=session_id)
        )

    async def tell_again(self, task_id: str) -> None:
        """An ended task's end is told to the other services once more (a
        proposal or payment made after its Stop was told)."""
        ended = [state.value for state in ENDED_STATES]
        await self._conn.execute(
            tasks.update()
            .where(tasks.c.id == task_id, tasks.c.state.in_(ended))
            .values(cleanup_pending=True)
        )


def _form_added(form_id: str, form: FilledForm) -> sa.ColumnElement:
    """The task's forms with this one added."""
    added = sa.func.jsonb_build_object(form_id, sa.cast(form_to_json(form), tasks.c.forms.type))
    return tasks.c.forms.op("||")(added)


def run_by(instance_id: str) -> list[sa.ColumnElement[bool]]:
    return [tasks.c.state == TaskState.RUNNING.value, tasks.c.runner_instance == instance_id]
