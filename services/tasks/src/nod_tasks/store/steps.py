"""SQL for steps (tool calls). A step starts only while its task is RUNNING
on this instance (so a stopped task starts nothing), with what it acts on;
it ends once, from RUNNING. Each is one statement that also writes its
event and what the model is told, so a run's step costs two statements:
they run either on the hot path's autocommit connection (the agent loop) or
inside a transaction with other changes (an answer, a reconcile)."""

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from psycopg import AsyncConnection as PsycopgConnection
from psycopg.rows import namedtuple_row
from psycopg.types.json import Jsonb
from sqlalchemy.ext.asyncio import AsyncConnection

from nod_tasks.domain import prompt, results
from nod_tasks.domain.events import StepView, code_of, form_kind_of
from nod_tasks.domain.outcomes import StepFact
from nod_tasks.domain.steps import Resolution, StepEnd, StepRecord, StepState, Subject
from nod_tasks.store.events import add_event
from nod_tasks.store.models import INSTANCE_LEASES, steps
from nod_tasks.store.records import FACT_KEYS, step_view_to_json, to_fact, to_step
from nodkit import history
from nodkit.metrics import count_uncertain

Connection = AsyncConnection | PsycopgConnection

_START = """
WITH numbered AS (
    UPDATE tasks.tasks
       SET steps = steps + 1, last_event = last_event + %(event_count)s
     WHERE id = %(task_id)s AND state = 'running' AND runner_instance = %(instance)s
       AND steps = %(number)s - 1
    RETURNING id, last_event, state
), step AS (
    INSERT INTO tasks.steps (task_id, number, call_id, tool, arguments, state,
                             login_id, form_id, payment_id, runner_instance)
    SELECT id, %(number)s, %(call_id)s, %(tool)s, %(arguments)s, 'running',
           %(login_id)s, %(form_id)s, %(payment_id)s, %(instance)s
      FROM numbered
    RETURNING *
), logged AS (
    INSERT INTO tasks.events (task_id, number, kind, state, data)
    SELECT n.id, n.last_event - %(event_count)s + e.ordinality, e.value->>'kind', n.state,
           e.value->'data'
      FROM numbered n, jsonb_array_elements(%(events)s) WITH ORDINALITY AS e
), said AS (
    INSERT INTO tasks.transcript (task_id, entry) SELECT id, %(said)s FROM numbered
)
SELECT * FROM step
"""

_END = """
WITH ended AS (
    UPDATE tasks.steps
       SET state = %(state)s, result = %(result)s, reason = %(reason)s,
           claim_id = coalesce(%(claim_id)s, claim_id),
           approval_id = coalesce(%(approval_id)s, approval_id),
           payment_id = coalesce(%(payment_id)s, payment_id),
           runner_instance = NULL, ended_at = now()
     WHERE task_id = %(task_id)s AND number = %(number)s AND state = 'running'
       AND (%(in_flight_on)s::text IS NULL OR runner_instance = %(in_flight_on)s)
    RETURNING *
), counted AS (
    UPDATE tasks.tasks SET last_event = last_event + 1
     WHERE id = %(task_id)s AND EXISTS (SELECT FROM ended)
    RETURNING id, last_event, state
), logged AS (
    INSERT INTO tasks.events (task_id, number, kind, state, data)
    SELECT c.id, c.last_event, 'step.ended', c.state,
           jsonb_build_object('step', jsonb_build_object(
               'number', e.number, 'tool', e.tool, 'arguments', e.arguments,
               'state', e.state, 'result', %(view)s::jsonb, 'reason', e.reason,
               'claim_id', e.claim_id, 'approval_id', e.approval_id,
               'payment_id', e.payment_id, 'resolution', e.resolution,
               'code', %(code)s::text, 'form_kind', %(form_kind)s::text))
      FROM counted c, ended e
), said AS (
    INSERT INTO tasks.transcript (task_id, entry) SELECT id, %(said)s FROM counted
)
SELECT * FROM ended
"""


async def _rows(conn: Connection, sql: str, params: dict[str, Any]) -> list[Any]:
    if isinstance(conn, AsyncConnection):
        return list(await conn.exec_driver_sql(sql, params))
    async with conn.cursor(row_factory=namedtuple_row) as cursor:
        await cursor.execute(sql, params)
        return await cursor.fetchall()


async def start(
    conn: Connection,
    *,
    task_id: str,
    instance_id: str,
    number: int,
    call: prompt.Called,
    subject: Subject,
    also: Sequence[tuple[str, dict[str, Any]]] = (),
) -> StepRecord | None:
    """Step `number` RUNNING with its `step.started` event (after the events
    in `also`, a model attempt) and the call in the transcript; None if the
    task no longer runs here or `number` isn't its next step."""
    started = StepView(
        number=number,
        tool=call.name,
        arguments=call.arguments,
        state=StepState.RUNNING,
        result=None,
        reason="",
        claim_id=None,
        approval_id=None,
        payment_id=subject.payment_id,
        resolution=None,
    )
    events = [*({"kind": k, "data": d} for k, d in also)]
    events.append({"kind": "step.started", "data": {"step": step_view_to_json(started)}})
    params = {
        "task_id": task_id,
        "instance": instance_id,
        "number": number,
        "call_id": call.call_id[:200],
        "tool": call.name,
        "arguments": Jsonb(call.arguments),
        "login_id": subject.login_id,
        "form_id": subject.form_id,
        "payment_id": subject.payment_id,
        "event_count": len(events),
        "events": Jsonb(events),
        "said": Jsonb(call.to_json()),
    }
    rows = await _rows(conn, _START, params)
    return to_step(rows[0]) if rows else None


async def end(
    conn: Connection, step: StepRecord, outcome: StepEnd, *, in_flight_on: str | None = None
) -> StepRecord | None:
    """RUNNING -> its end, once, with its event; the model is told its
    result under the call's id, so no call is ever left unanswered. None if
    it had already ended, or, with `in_flight_on`, if it is no longer in
    flight on that instance (it waits for the person now)."""
    view = outcome.result.for_model()
    params = {
        "task_id": step.task_id,
        "number": step.number,
        "in_flight_on": in_flight_on,
        "state": outcome.state.value,
        "result": Jsonb(results.to_json(outcome.result)),
        "reason": outcome.reason,
        "claim_id": outcome.claim_id,
        "approval_id": outcome.approval_id,
        "payment_id": outcome.payment_id,
        "view": Jsonb(view),
        "code": code_of(outcome.result),
        "form_kind": form_kind_of(step.tool, step.arguments, outcome.result),
        "said": Jsonb(prompt.Answered(step.call_id, step.number, view).to_json()),
    }
    rows = await _rows(conn, _END, params)
    if rows and outcome.state == StepState.UNCERTAIN:
        if isinstance(conn, AsyncConnection):
            history.uncertain_when_committed(conn, steps.name, 1)
        else:  # the hot path's autocommit: it is committed already
            count_uncertain(steps.name)
    return to_step(rows[0]) if rows else None


class StepRows:
    """The steps of tasks, inside a transaction."""

    def __init__(self, conn: AsyncConnection) -> None:
        self._conn = conn

    async def end(
        self, step: StepRecord, outcome: StepEnd, *, in_flight_on: str | None = None
    ) -> StepRecord | None:
        return await end(self._conn, step, outcome, in_flight_on=in_flight_on)

    async def wait(self, step: StepRecord, *, approval_id: str = "", payment_id: str = "") -> None:
        """The step waits for the person: it is no instance's any more, and
        keeps what it made (a proposal's approval, a payment)."""
        made: dict[str, str | None] = {"runner_instance": None}
        if approval_id:
            made["approval_id"] = approval_id
        if payment_id:
            made["payment_id"] = payment_id
        await self._conn.execute(
            steps.update()
            .where(
                steps.c.task_id == step.task_id,
                steps.c.number == step.number,
                steps.c.state == StepState.RUNNING.value,
            )
            .values(**made)
        )

    async def resolve(self, task_id: str, number: int, resolution: Resolution) -> StepRecord | None:
        """What the person found, beside the UNCERTAIN state (which stays)."""
        row = (
            await self._conn.execute(
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
        resolved = to_step(row)
        data = {"step": step_view_to_json(StepView.of(resolved))}
        await add_event(self._conn, task_id, "step.resolved", data)
        return resolved

    async def in_flight_on(self, instance_id: str) -> list[StepRecord]:
        """The steps in flight on this instance (which is restarting)."""
        return await self._running(steps.c.runner_instance == instance_id)

    async def in_flight_on_lapsed(self) -> list[StepRecord]:
        """The steps in flight on instances whose lease lapsed."""
        return await self._running(INSTANCE_LEASES.lapsed(steps.c.runner_instance))

    async def _running(self, where: sa.ColumnElement[bool]) -> list[StepRecord]:
        query = sa.select(steps).where(
            steps.c.state == StepState.RUNNING.value, steps.c.runner_instance.is_not(None), where
        )
        return [to_step(row) for row in await self._conn.execute(query)]

    async def of_task(self, task_id: str) -> list[StepRecord]:
        query = sa.select(steps).where(steps.c.task_id == task_id).order_by(steps.c.number)
        return [to_step(row) for row in await self._conn.execute(query)]

    async def facts_of(self, task_ids: list[str]) -> dict[str, list[StepFact]]:
        """What the outcome of each task is judged from (domain.outcomes):
        a few small fields of each step, not its page."""
        if not task_ids:
            return {}
        result = steps.c.result
        query = (
            sa.select(
                steps.c.task_id,
                steps.c.number,
                steps.c.tool,
                steps.c.state,
                steps.c.resolution,
                *(result[key].astext.label(key) for key in FACT_KEYS),
            )
            .where(steps.c.task_id.in_(task_ids))
            .order_by(steps.c.task_id, steps.c.number)
        )
        facts: dict[str, list[StepFact]] = {task_id: [] for task_id in task_ids}
        for row in await self._conn.execute(query):
            facts[str(row.task_id)].append(to_fact(row))
        return facts

    async def get(self, task_id: str, number: int) -> StepRecord | None:
        query = sa.select(steps).where(steps.c.task_id == task_id, steps.c.number == number)
        row = (await self._conn.execute(query)).first()
        return to_step(row) if row else None
