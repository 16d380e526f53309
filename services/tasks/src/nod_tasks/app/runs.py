"""One run of one task on this instance: the agent loop (G5, G9, G10).

Ask the model for the next step; record the step RUNNING (with what it acts
on) before it starts; run the tool once; record its end and tell the model;
repeat, until the model finishes, the task must wait for the person, or
something ends it. Every change is conditional on the task still RUNNING on
this instance, so a Stop (by any instance) ends the loop and nothing new
starts after it.

The run keeps the task's steps and conversation in memory, read once when
it starts: while it runs, it is their only writer. A step then costs two
statements (its start and its end, each with its event and transcript
entry), and the person's saved items are read for the next request while
the end is written.

After a step that changed or read a page, its picture (the browser's
Screenshot, private values painted over) is taken while the model is asked
for the next step, and kept with the step for the person (never the model:
it goes into no result, event or transcript). It is waited for only before
the next tool call or the run's end, NOD_TASKS_SCREENSHOT_TIMEOUT_S at
most; one that fails or is late is left out, said in a log line.

Nothing in a run may hang: each model request (its retries included) and
each tool call must end within the step deadline (NOD_TASKS_STEP_DEADLINE_S),
which starts afresh with each. Past it the run is cut off as a Stop cuts
it (the step in flight ends as cut off: UNCERTAIN when it may have acted)
and the task ends INTERRUPTED, saying so; nothing is retried. A task that
waits for the person has no run left to cut.
"""

import asyncio
from dataclasses import dataclass, replace
from typing import Any

from nod_tasks.adapters.peers import Peers
from nod_tasks.app import model_requests
from nod_tasks.app.context import task_context
from nod_tasks.app.endings import Endings
from nod_tasks.app.pictures import StepPictures
from nod_tasks.app.tools.base import Outcome, StepContext, WaitFor
from nod_tasks.app.tools.registry import SCHEMAS, TOOLS
from nod_tasks.domain import prompt, steps, tools
from nod_tasks.domain.events import ModelAttempt
from nod_tasks.domain.model import Message, ModelProvider, ModelReply, ModelRequest, TaskContext
from nod_tasks.domain.results import Finished
from nod_tasks.domain.retry import ModelFailure, RetryDecision
from nod_tasks.domain.steps import StepEnd, StepRecord, StepState
from nod_tasks.domain.tasks import (
    CHECK_OR_CONTINUE,
    Move,
    TaskRecord,
    TaskState,
    Wait,
    check_wait,
    took_too_long,
)
from nod_tasks.settings import TasksSettings
from nod_tasks.store.database import Database, Transaction
from nod_tasks.store.records import attempt_to_json
from nod_tasks.store.tasks import Which
from nodkit import faults, tracing
from nodkit.client import NodRpcError
from nodkit.logging import get_logger

log = get_logger("nod_tasks.runs")
CUT_OFF = "it was stopped while it ran"
INTERNAL_ERROR = "an internal error stopped it"


@dataclass(frozen=True)
class RunDeps:
    db: Database
    peers: Peers
    provider: ModelProvider
    settings: TasksSettings
    endings: Endings


class Run:
    def __init__(self, deps: RunDeps, task: TaskRecord) -> None:
        self._deps = deps
        self._db = deps.db
        self._task = task
        self._me = deps.settings.instance_id
        self._requests = 0
        self._steps: list[StepRecord] = []
        self._messages: list[Message] = []
        # The last context read, and when it began (the loop's clock).
        self._read: tuple[float, TaskContext] | None = None
        # Events written with the next change (a model request's good attempt).
        self._pending: list[tuple[str, dict[str, Any]]] = []
        self._step_deadline_s = deps.settings.step_deadline_s
        # Ends the run once it makes no progress for the step deadline.
        self._deadline: asyncio.Timeout | None = None
        # The task was committed WAITING: what is left of the run is no step.
        self._handed_over = False
        # Each page step's picture, for the person (app/pictures.py).
        self._pictures = StepPictures(deps.db, deps.peers, deps.settings, task)

    async def go(self) -> None:
        """The run, to its end; one that fails inside ends its task FAILED
        (nothing is left RUNNING), asking the person to check or continue;
        one past its step deadline ends it INTERRUPTED, saying so."""
        try:
            # The run joins the trace of the call that queued the task.
            with (
                tracing.resumed(self._task.traceparent),
                tracing.span("task.run", {"nod.task_id": self._task.id}),
            ):
                async with asyncio.timeout(self._step_deadline_s) as self._deadline:
                    await faults.point("tasks.taken")
                    await self._go()
        except Exception:
            if self._overdue():
                log.warning(
                    "run.overdue", task_id=self._task.id, step_deadline_s=self._step_deadline_s
                )
                await self._end(Move.INTERRUPT, took_too_long(self._step_deadline_s))
                return
            log.exception("run.failed_inside", task_id=self._task.id)
            await self._end(Move.FAIL, f"an internal error stopped this task: {CHECK_OR_CONTINUE}")

    def _overdue(self) -> bool:
        return self._deadline is not None and self._deadline.expired()

    def _progressed(self) -> None:
        """A model request or a tool call begins: the step deadline starts afresh."""
        if self._deadline is not None and not self._deadline.expired():
            loop = asyncio.get_running_loop()
            self._deadline.reschedule(loop.time() + self._step_deadline_s)

    def _cut_off_end(self, tool: str) -> StepEnd:
        """How a step cut off mid-way ends, and why: its run stopped, or overran."""
        if self._overdue():
            return tools.cut_off_end(tool, f"it took longer than {self._step_deadline_s:g} s")
        return tools.cut_off_end(tool, CUT_OFF)

    async def _go(self) -> None:
        if not await self._load():
            return  # stopped, or no longer this instance's
        next_context = self._context()
        try:
            for _ in range(self._deps.settings.max_steps_per_run):
                try:
                    context = await next_context
                except NodRpcError as error:
                    why = f"nod could not read your saved items ({error.code.name})"
                    await self._end(Move.FAIL, f"{why}: {CHECK_OR_CONTINUE}")
                    return
                reply = await self._ask_model(context)
                if reply is None:
                    return
                if not reply.tool_calls:
                    await self._end(Move.FINISH, reply.text.strip() or "Done.")
                    return
                call = reply.tool_calls[0]
                ended = await self._step(context, call.id, call.name, call.arguments)
                if ended is None:
                    return
                next_context = ended
            limit = self._deps.settings.max_steps_per_run
            await self._end(Move.FAIL, f"it took more than {limit} steps: {CHECK_OR_CONTINUE}")
        finally:
            next_context.cancel()
            self._pictures.drop()  # the run was cut off: what is left of it is no step

    async def _load(self) -> bool:
        """The task as it stands, its steps and its conversation so far."""
        async with self._db.reads() as tx:
            task = await tx.tasks.get(self._task.owner, self._task.id)
            if task is None or task.state != TaskState.RUNNING or task.runner_instance != self._me:
                return False
            self._task = task
            self._steps = await tx.steps.of_task(task.id)
            self._messages = [entry.message() for entry in await tx.transcript(task.id)]
        return True

    def _context(self) -> "asyncio.Future[TaskContext]":
        """The context for the next request: the last read while it is
        younger than context_max_age_s (steps that follow each other
        quickly), else a new read (the person may save an item meanwhile)."""
        loop = asyncio.get_running_loop()
        if self._read is not None:
            read_at, context = self._read
            if loop.time() - read_at < self._deps.settings.context_max_age_s:
                kept: asyncio.Future[TaskContext] = loop.create_future()
                kept.set_result(context)
                return kept
        return asyncio.ensure_future(self._read_context(loop.time()))

    async def _read_context(self, began: float) -> TaskContext:
        context = await task_context(self._deps.peers, self._task)
        self._read = (began, context)
        return context

    async def _ask_model(self, context: TaskContext) -> ModelReply | None:
        messages = (prompt.system_prompt(context), *self._messages)
        request = ModelRequest(messages, SCHEMAS, context)
        self._requests += 1
        self._progressed()
        try:
            with tracing.span("model.request", {"nod.request": self._requests}):
                return await model_requests.ask(self._deps.provider, request, self._record_attempt)
        except model_requests.ModelGaveUp as gave_up:
            if gave_up.decision.wait_too_long:
                message = (
                    f"The model provider is busy ({gave_up.decision.why}): say continue later."
                )
            else:
                message = f"The model provider failed ({gave_up.failure}): {CHECK_OR_CONTINUE}"
            await self._end(Move.FAIL, message)
            return None

    async def _record_attempt(
        self, attempt: int, failure: ModelFailure | None, decision: RetryDecision | None
    ) -> None:
        data = {
            "model_attempt": attempt_to_json(
                ModelAttempt(
                    request=self._requests,
                    attempt=attempt,
                    status=(failure.status or 0) if failure else 200,
                    error=str(failure) if failure else "",
                    wait_s=decision.wait_s if decision and decision.retry else 0.0,
                    retried=bool(decision and decision.retry),
                )
            )
        }
        if failure is None:
            # Written with the step it brought (or the end), in one statement.
            self._pending.append(("model.attempt", data))
            return
        async with self._db.transaction() as tx:
            await tx.add_event(self._task.id, "model.attempt", data)

    async def _step(
        self, context: TaskContext, call_id: str, name: str, arguments: dict[str, Any] | None
    ) -> "asyncio.Future[TaskContext] | None":
        """Runs one tool call. None when the run ends here (it waits, or
        ended); else the context for the next request, being read."""
        planned = tools.plan_call(name, arguments, self._steps, self._task.forms)
        called = prompt.Called(call_id, planned.name, planned.arguments)
        self._progressed()
        step = await self._start(called, planned)
        if step is None:
            return None  # stopped meanwhile: the step never started
        ctx = StepContext(
            self._task, step, context, self._steps, self._deps.peers, self._deps.settings
        )
        # Read while the tool runs and its end is written, for the next request.
        next_context = self._context()
        try:
            await faults.point("tasks.tool_call_running")
            if planned.refused:
                goes_on = await self._end_step(
                    ctx, steps.not_run(planned.refused, code=planned.refused_code)
                )
            else:
                goes_on = await self._run_and_end(ctx, planned)
        except asyncio.CancelledError:
            next_context.cancel()
            # Stop, shutdown or the step deadline: the step's end is written
            # even so, unless it ended already or now waits for the person
            # (the deadline then only ends what was left of the run: the
            # person's answer, or the task's end, ends the step).
            if not (self._handed_over and self._overdue()):
                cut_off = self._cut_off_end(step.tool)
                await asyncio.shield(self._db.end_step(step, cut_off, in_flight_on=self._me))
            raise
        except Exception:
            next_context.cancel()
            # The run ends its task FAILED (go); the step it was in ends as a
            # cut-off one, or it would stay RUNNING under an ended task until
            # the next restart. A step that ended or waits already is left be.
            cut_off = tools.cut_off_end(step.tool, INTERNAL_ERROR)
            await self._db.end_step(step, cut_off, in_flight_on=self._me)
            raise
        if not goes_on:
            next_context.cancel()
            return None
        return next_context

    async def _run_and_end(self, ctx: StepContext, planned: tools.Planned) -> bool:
        # The last step's picture shows the page it left, not this step's.
        await self._pictures.taken()
        outcome = await self._run_tool(ctx, planned)
        if isinstance(outcome, WaitFor) or outcome.state != StepState.NOT_RUN:
            # Not for a step refused before it touched the page.
            self._pictures.take(ctx.step, ctx.session_id or self._task.session_id)
        if isinstance(outcome, WaitFor):
            await self._wait(ctx, outcome)
            return False
        return await self._end_step(ctx, outcome)

    async def _start(self, called: prompt.Called, planned: tools.Planned) -> StepRecord | None:
        """The step RUNNING here, with what it acts on. A start that is cut
        off on its way still lands (or not) as one statement: a step it made
        is ended as cut off before the cancellation goes on."""
        starting = asyncio.ensure_future(
            self._db.start_step(
                task_id=self._task.id,
                instance_id=self._me,
                number=self._task.steps + 1,
                call=called,
                subject=planned.subject,
                also=self._pending,
            )
        )
        try:
            step = await asyncio.shield(starting)
        except asyncio.CancelledError:
            if (made := await starting) is not None:
                cut_off = self._cut_off_end(made.tool)
                await self._db.end_step(made, cut_off, in_flight_on=self._me)
            raise
        if step is None:
            await self._write_pending()
            return None
        self._pending = []
        self._task = replace(self._task, steps=step.number)
        self._messages.append(called.message())
        return step

    async def _write_pending(self) -> None:
        """Events that found no change to go with (the task was stopped)."""
        if self._pending:
            async with self._db.transaction() as tx:
                for kind, data in self._pending:
                    await tx.add_event(self._task.id, kind, data)
            self._pending = []

    async def _run_tool(self, ctx: StepContext, planned: tools.Planned) -> Outcome:
        try:
            with tracing.span(f"tool {planned.name}", {"nod.step": ctx.step.number}):
                outcome = await TOOLS[planned.name].run(ctx, planned.arguments)
            await faults.point("tasks.peer_called")
            return outcome
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("step.failed_inside", task_id=ctx.task.id, step=ctx.step.number)
            return tools.cut_off_end(ctx.step.tool, INTERNAL_ERROR)

    async def _end_step(self, ctx: StepContext, end: StepEnd) -> bool:
        """The step's end, and the task's move it brings; True if the run goes on."""
        await self._keep_session(ctx)
        step = ctx.step
        then: tuple[Move, str | None, Wait | None] | None = None
        if isinstance(end.result, Finished) and end.state == StepState.DONE:
            then = (Move.FINISH, end.result.message, None)
        elif end.state == StepState.UNCERTAIN:
            then = (Move.WAIT, None, check_wait(step.number, end.reason))
        elif ctx.then_wait is not None:
            then = (Move.WAIT, None, ctx.then_wait)
        if then is not None:
            move, message, wait = then
            async with self._db.transaction() as tx:
                await tx.steps.end(step, end, in_flight_on=self._me)
                await self._move(tx, move, message=message, wait=wait)
            await self._kick()
            return False
        ended = await self._db.end_step(step, end, in_flight_on=self._me)
        if ended is None:
            return False  # ended already (the task was interrupted meanwhile)
        await faults.point("tasks.result_recorded")
        self._steps.append(ended)
        view = end.result.for_model()
        self._messages.append(prompt.Answered(step.call_id, step.number, view).message())
        return True

    async def _wait(self, ctx: StepContext, waiting: WaitFor) -> None:
        await self._keep_session(ctx)
        async with self._db.transaction() as tx:
            # The step is no instance's from here, a private form's too: a
            # shutdown that cuts off what is left of this run must not end
            # it (the person's answer, or the task's end, does).
            await tx.steps.wait(
                ctx.step, approval_id=waiting.approval_id, payment_id=waiting.payment_id
            )
            moved = await self._move(tx, Move.WAIT, wait=waiting.wait)
            if not moved:
                # Stopped while the proposal or payment was being made: the
                # stop's telling may have come first, so it is told again.
                await tx.tasks.tell_again(ctx.task.id)
        self._handed_over = moved
        await faults.point("tasks.waiting")
        await self._kick()

    async def _keep_session(self, ctx: StepContext) -> None:
        if ctx.session_id and ctx.session_id != self._task.session_id:
            async with self._db.transaction() as tx:
                await tx.tasks.set_session(ctx.task.id, ctx.session_id)
            self._task = replace(self._task, session_id=ctx.session_id)

    async def _move(
        self, tx: Transaction, move: Move, *, message: str | None = None, wait: Wait | None = None
    ) -> bool:
        """The task moves on, if it still runs here; the events waiting for
        a change are written first."""
        for kind, data in self._pending:
            await tx.add_event(self._task.id, kind, data)
        self._pending = []
        here = Which(task_id=self._task.id, running_on=self._me)
        return bool(await tx.tasks.move(move, here, actor=self._me, message=message, wait=wait))

    async def _end(self, move: Move, message: str) -> None:
        # The last step's picture (its end was written a model request ago)
        # lands before the task's end: an ended task has all its pictures.
        await self._pictures.taken()
        async with self._db.transaction() as tx:
            await self._move(tx, move, message=message)
        # Its end is told to the other services now (what it left open is cancelled).
        await self._kick()

    async def _kick(self) -> None:
        """The task's end (or wait) is told on: the last page picture is
        taken first, before its session may be closed."""
        await self._pictures.taken()
        self._deps.endings.kick()
