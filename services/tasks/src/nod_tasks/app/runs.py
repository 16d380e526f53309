"""One run of one task on this instance: the agent loop (G5, G9, G10).

Ask the model for the next step; record the step RUNNING before it starts;
run the tool once; record its end and tell the model; repeat — until the
model finishes, the task must wait for the person, or something ends it.
Every change is conditional on the task still RUNNING on this instance, so
a Stop (by any instance) ends the loop and nothing new starts after it.
"""

import asyncio
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

from nod_tasks.adapters.peers import Peers
from nod_tasks.app import model_requests
from nod_tasks.app.context import task_context
from nod_tasks.app.tools.base import Outcome, StepContext, WaitFor
from nod_tasks.app.tools.registry import HANDLERS
from nod_tasks.domain import steps as step_rules
from nod_tasks.domain.model import ModelProvider, ModelRequest, TaskContext, ToolCall
from nod_tasks.domain.prompt import assistant_call, to_messages
from nod_tasks.domain.retry import ModelFailure, RetryDecision
from nod_tasks.domain.steps import StepEnd, StepRecord, StepState
from nod_tasks.domain.tasks import CHECK_OR_CONTINUE, TaskRecord, TaskState, Wait, WaitKind
from nod_tasks.domain.tools import TOOLS, BadToolCall, check_call, identical_earlier_step
from nod_tasks.settings import TasksSettings
from nod_tasks.store import steps as step_store
from nod_tasks.store import tasks as task_store
from nodkit.client import NodRpcError
from nodkit.logging import get_logger

log = get_logger("nod_tasks.runs")
TOOL_SCHEMAS = [tool.schema() for tool in TOOLS]
# Cut off in the middle, these touched nothing outside the page.
HARMLESS_WHEN_CUT_OFF = frozenset(
    {"read_page", "navigate", "type_text", "ask_private_form", "ask_person", "finish"}
)


@dataclass(frozen=True)
class RunDeps:
    engine: AsyncEngine
    peers: Peers
    provider: ModelProvider
    settings: TasksSettings


class Run:
    def __init__(self, deps: RunDeps, task: TaskRecord) -> None:
        self._deps = deps
        self._task = task
        self._me = deps.settings.instance_id
        self._requests = 0

    async def go(self) -> None:
        # Read once: every later change is conditional on the task still
        # RUNNING on this instance, so a Stop anywhere ends the loop anyway.
        if not await self._still_mine():
            return
        for _ in range(self._deps.settings.max_steps_per_run):
            try:
                # Fresh for every request: the person may save an item meanwhile.
                context, transcript = await asyncio.gather(
                    task_context(self._deps.peers, self._task), self._read_transcript()
                )
            except NodRpcError as error:
                await self._end(
                    TaskState.FAILED,
                    f"nod could not read your saved items ({error.code.name}): {CHECK_OR_CONTINUE}",
                )
                return
            reply = await self._ask_model(context, transcript)
            if reply is None:
                return
            if not reply.tool_calls:
                await self._end(TaskState.DONE, reply.text.strip() or "Done.")
                return
            if await self._step(context, reply.tool_calls[0]):
                return
        limit = self._deps.settings.max_steps_per_run
        await self._end(TaskState.FAILED, f"it took more than {limit} steps: {CHECK_OR_CONTINUE}")

    async def _still_mine(self) -> bool:
        async with self._deps.engine.connect() as conn:
            task = await task_store.get_task(conn, self._task.owner, self._task.id)
        if task is None or task.state != TaskState.RUNNING or task.runner_instance != self._me:
            return False  # stopped, or no longer this instance's
        self._task = task
        return True

    async def _read_transcript(self) -> list[dict[str, Any]]:
        async with self._deps.engine.connect() as conn:
            return await step_store.read_transcript(conn, self._task.id)

    async def _ask_model(self, context: TaskContext, transcript: list[dict[str, Any]]):
        request = ModelRequest(to_messages(context, transcript), TOOL_SCHEMAS, context)
        self._requests += 1
        try:
            return await model_requests.ask(self._deps.provider, request, self._record_attempt)
        except model_requests.ModelGaveUp as gave_up:
            if gave_up.decision.wait_too_long:
                message = (
                    f"The model provider is busy ({gave_up.decision.why}): say continue later."
                )
            else:
                message = f"The model provider failed ({gave_up.failure}): {CHECK_OR_CONTINUE}"
            await self._end(TaskState.FAILED, message)
            return None

    async def _record_attempt(
        self, attempt: int, failure: ModelFailure | None, decision: RetryDecision | None
    ) -> None:
        data = {
            "model_attempt": {
                "request": self._requests,
                "attempt": attempt,
                "status": (failure.status or 0) if failure else 200,
                "error": str(failure) if failure else "",
                "wait_s": decision.wait_s if decision and decision.retry else 0.0,
                "retried": bool(decision and decision.retry),
            }
        }
        async with self._deps.engine.begin() as conn:
            await task_store.add_event(conn, self._task.id, "model.attempt", data)

    async def _step(self, context: TaskContext, call: ToolCall) -> bool:
        """Runs one tool call; True when the run ends here (it waits, or ended)."""
        task = self._task
        arguments = call.arguments if call.arguments is not None else {}
        async with self._deps.engine.begin() as conn:
            earlier = await step_store.list_steps(conn, task.id)
            step = await step_store.start(conn, task.id, self._me, call.id, call.name, arguments)
            if step is None:
                return True  # stopped meanwhile: the step never started
            await step_store.append_transcript(
                conn, task.id, assistant_call(call.id, call.name, arguments)
            )
        ctx = StepContext(task, step, context, earlier, self._deps.peers, self._deps.settings)
        try:
            outcome = await self._run_tool(ctx, call)
        except asyncio.CancelledError:
            # Stop or shutdown: the step's end is written even so.
            await asyncio.shield(self._end_step(ctx, _cut_off(step)))
            raise
        if isinstance(outcome, WaitFor):
            return await self._wait(ctx, outcome)
        return await self._end_step(ctx, outcome)

    async def _run_tool(self, ctx: StepContext, call: ToolCall) -> Outcome:
        if call.arguments is None:
            return step_rules.not_run("the arguments were not a JSON object")
        try:
            arguments = check_call(call.name, call.arguments)
        except BadToolCall as bad:
            return step_rules.not_run(str(bad))
        repeated = identical_earlier_step(call.name, arguments, ctx.earlier)
        if repeated is not None:
            return step_rules.not_run(
                f"identical to step {repeated.number}, which is never run again;"
                " give new_action_reason if this is a new action"
            )
        try:
            return await HANDLERS[call.name](ctx, arguments)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("step.failed_inside", task_id=ctx.task.id, step=ctx.step.number)
            return _cut_off(ctx.step, "an internal error stopped it")

    async def _wait(self, ctx: StepContext, waiting: WaitFor) -> bool:
        async with self._deps.engine.begin() as conn:
            await self._keep_session(conn, ctx)
            if waiting.made:
                await step_store.note(conn, ctx.task.id, ctx.step.number, **waiting.made)
            if not await self._move_to_wait(conn, waiting.wait):
                # Stopped while the proposal or payment was being made: the stop's
                # cancellation may have come first, so it is made again.
                await task_store.mark_cleanup_pending(conn, ctx.task.id)
        return True

    async def _end_step(self, ctx: StepContext, end: StepEnd) -> bool:
        step = ctx.step
        async with self._deps.engine.begin() as conn:
            await self._keep_session(conn, ctx)
            if await step_store.end(conn, ctx.task.id, step.number, end) is None:
                return True  # ended already (the task was interrupted meanwhile)
            if step.tool == "finish" and end.state == StepState.DONE:
                await self._move(conn, TaskState.DONE, "task.ended", message=end.result["message"])
                return True
            if end.state == StepState.UNCERTAIN:
                await self._move_to_wait(conn, check_wait(step.number, end.reason))
                return True
            if ctx.then_wait is not None:
                await self._move_to_wait(conn, ctx.then_wait)
                return True
        return False

    async def _keep_session(self, conn, ctx: StepContext) -> None:
        if ctx.session_id and ctx.session_id != self._task.session_id:
            await task_store.set_session(conn, ctx.task.id, ctx.session_id)
            self._task = replace(self._task, session_id=ctx.session_id)

    async def _move_to_wait(self, conn, wait: Wait) -> bool:
        return await self._move(conn, TaskState.WAITING, "task.waiting", wait=wait.to_json())

    async def _move(self, conn, state: TaskState, kind: str, **values: Any) -> bool:
        data = {k: v for k, v in values.items() if k in ("message", "wait")}
        return bool(
            await task_store.move(
                conn,
                *task_store.one_task(self._task.id),
                *task_store.run_by(self._me),
                to_state=state,
                kind=kind,
                data=data,
                **values,
            )
        )

    async def _end(self, state: TaskState, message: str) -> None:
        async with self._deps.engine.begin() as conn:
            await self._move(conn, state, "task.ended", message=message)


def check_wait(step: int, why: str) -> Wait:
    return Wait(
        WaitKind.CHECK,
        str(step),
        prompt=f"Step {step} may have happened: {why}. Check, then say what you found.",
        step=step,
    )


def _cut_off(step: StepRecord, why: str = "it was stopped while it ran") -> StepEnd:
    if step.tool in HARMLESS_WHEN_CUT_OFF:
        return step_rules.failed(why)
    return step_rules.uncertain(why)
