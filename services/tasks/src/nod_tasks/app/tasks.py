"""The person's calls on their tasks: start, read, watch, continue, and the
answers to what a task waits for (a private form, a question, a check).
Callers pass the person (`owner`); another person's task looks like none."""

from collections.abc import AsyncIterator
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from nod.claims.v1 import claims_pb2 as claims
from nod_tasks.adapters.peers import Peers
from nod_tasks.app.resolutions import answer_wait
from nod_tasks.domain.checks import refused_logins
from nod_tasks.domain.prompt import person_said
from nod_tasks.domain.steps import Resolution, StepEnd, StepRecord, StepState
from nod_tasks.domain.tasks import (
    ENDED_STATES,
    FormKind,
    TaskRecord,
    TaskState,
    WaitKind,
    check_answer,
    check_resolution_step,
    check_task_text,
    refuse_unless_ended,
    refuse_unless_waiting_for,
)
from nod_tasks.store import steps as step_store
from nod_tasks.store import tasks as task_store
from nod_tasks.store.models import tasks
from nodkit import listing, validation
from nodkit.errors import AlreadyExists, FailedPrecondition, NotFound
from nodkit.logging import get_logger
from nodkit.notices import Notices, announced_or_timeout

log = get_logger("nod_tasks.tasks")
MAX_EVENTS = 500


@dataclass(frozen=True)
class History:
    events: list[sa.Row]
    steps: list[StepRecord]
    more: bool


class Tasks:
    def __init__(
        self, engine: AsyncEngine, peers: Peers, notices: Notices, *, watch_poll_s: float
    ) -> None:
        self._engine = engine
        self._peers = peers
        self._notices = notices
        self._watch_poll_s = watch_poll_s

    async def start(self, owner: str, text: str, request_id: str) -> TaskRecord:
        text = check_task_text(text)
        request_id = validation.printable_id("request_id", request_id) if request_id else ""
        async with self._engine.begin() as conn:
            task = await task_store.insert_task(conn, owner, text, request_id or None)
            if task is None:
                task = await task_store.get_by_request(conn, owner, request_id)
                if task is None or task.text != text:
                    raise AlreadyExists(
                        "request_id was already used for another task", reason="REQUEST_ID_REUSED"
                    )
                return task
            await step_store.append_transcript(conn, task.id, person_said(text))
        log.info("task.started", task_id=task.id)
        return task

    async def get(self, owner: str, task_id: str) -> TaskRecord:
        task_id = validation.uuid_id("task_id", task_id)
        async with self._engine.connect() as conn:
            task = await task_store.get_task(conn, owner, task_id)
        if task is None:
            raise NotFound("no such task", reason="TASK_NOT_FOUND")
        return task

    async def list(
        self, owner: str, state: TaskState | None, page: listing.PageRequest
    ) -> listing.Page[TaskRecord]:
        async with self._engine.connect() as conn:
            return await task_store.list_tasks(conn, owner, state, page)

    async def history(self, owner: str, task_id: str, after: int, limit: int) -> History:
        task = await self.get(owner, task_id)
        limit = min(limit or 200, MAX_EVENTS)
        async with self._engine.connect() as conn:
            events = await task_store.list_events(conn, task.id, after, limit + 1)
            steps = await step_store.list_steps(conn, task.id)
        return History(events[:limit], steps, len(events) > limit)

    async def watch(
        self, owner: str, task_id: str, after: int
    ) -> AsyncIterator[tuple[sa.Row, TaskRecord]]:
        """Every event after `after`, then each new one, until the task has
        ended and every event is out. It looks again when the task's events
        are announced (migration 0002), and every watch_poll_s regardless."""
        task = await self.get(owner, task_id)
        with self._notices.listen(task.id) as announced:
            while True:
                announced.clear()  # before the look: a later event wakes the wait below
                async with self._engine.connect() as conn:
                    # One snapshot for both reads: a task seen ended is seen with
                    # every event up to its end, so none is left out of the stream.
                    await conn.execution_options(isolation_level="REPEATABLE READ")
                    events = await task_store.list_events(conn, task.id, after, MAX_EVENTS)
                    task = await task_store.get_task(conn, owner, task.id) or task
                for event in events:
                    after = event.number
                    yield event, task
                if not events and task.state in ENDED_STATES:
                    return
                if not events:
                    await announced_or_timeout(announced, self._watch_poll_s)

    async def continue_(self, owner: str, task_id: str, text: str) -> TaskRecord:
        """The person's explicit continue: a new run that starts from what
        happened (the model sees every step and its end); nothing is redone."""
        text = check_answer(text)
        task = await self.get(owner, task_id)
        refuse_unless_ended(task)
        async with self._engine.begin() as conn:
            moved = await task_store.move(
                conn,
                *task_store.one_task(task.id, owner),
                tasks.c.state == task.state.value,
                to_state=TaskState.QUEUED,
                kind="task.queued",
                data={"message": text},
                message="",
                run=tasks.c.run + 1,
            )
            if not moved:
                raise FailedPrecondition("the task changed meanwhile; look again", reason="RACED")
            await step_store.append_transcript(
                conn, task.id, person_said(f"The person says: {text}")
            )
        return moved[0]

    async def submit_form(self, owner: str, task_id: str, form_id: str, item_id: str) -> TaskRecord:
        task = await self.get(owner, task_id)
        wait = refuse_unless_waiting_for(task, WaitKind.PRIVATE_FORM, form_id)
        item_id = validation.uuid_id("item_id", item_id)
        picked = await self._picked_login(task, item_id)
        if picked and wait.form_kind not in (FormKind.LOGIN, FormKind.PASSWORD):
            raise FailedPrecondition(
                "this form asks for a value, not a saved login", reason="WRONG_ITEM"
            )
        kind = wait.form_kind.value if wait.form_kind else ""
        form = {"kind": kind, "item_id": item_id, "picked": picked}
        how = "picked a saved login" if picked else "typed it"
        result = {"outcome": "done", "form_id": form_id, "kind": kind, "filled": how}
        note = None
        if not wait.step:  # a form the task opened itself (a saved login didn't get through)
            note = (
                f"The person filled private form {form_id} ({kind}): they {how}."
                f" Use enter_from_private_form with form_id {form_id}."
            )
        async with self._engine.begin() as conn:
            moved = await answer_wait(
                conn,
                task,
                wait,
                step_end=StepEnd(StepState.DONE, result),
                note=note,
                event={"message": f"private form {kind} filled"},
                forms=tasks.c.forms.op("||")(
                    sa.func.jsonb_build_object(form_id, sa.cast(form, tasks.c.forms.type))
                ),
            )
        return self._answered(moved)

    async def _picked_login(self, task: TaskRecord, item_id: str) -> bool:
        """Whether the person picked one of their saved logins (else the id is
        a value they typed, checked by the claims service when it is used)."""
        reply = await self._peers.claims.call(
            self._peers.vault_stub.ListItems,
            claims.ListItemsRequest(kind=claims.ENTRY_KIND_SAVED_LOGIN),
            task.owner,
        )
        if item_id not in {item.id for item in reply.items}:
            return False
        async with self._engine.connect() as conn:
            steps = await step_store.list_steps(conn, task.id)
        if item_id in refused_logins(steps):
            raise FailedPrecondition(
                "that saved login did not get through earlier in this task; type the password",
                reason="LOGIN_REFUSED",
            )
        return True

    async def answer(self, owner: str, task_id: str, question_id: str, text: str) -> TaskRecord:
        text = check_answer(text)
        task = await self.get(owner, task_id)
        wait = refuse_unless_waiting_for(task, WaitKind.ANSWER, question_id)
        end = StepEnd(StepState.DONE, {"outcome": "done", "answer": text})
        async with self._engine.begin() as conn:
            moved = await answer_wait(conn, task, wait, step_end=end, event={"message": text})
        return self._answered(moved)

    async def resolve(
        self, owner: str, task_id: str, step: int, resolution: Resolution, note: str
    ) -> TaskRecord:
        """What the person found, recorded beside the UNCERTAIN state (which
        stays); the task goes on from it. A new attempt is the model's new step."""
        note = validation.text("note", note, max_length=1000).strip()
        task = await self.get(owner, task_id)
        wait = check_resolution_step(task, step)
        found = "it happened" if resolution == Resolution.HAPPENED else "it did not happen"
        said = f"The person checked step {step}: {found}." + (f" {note}" if note else "")
        async with self._engine.begin() as conn:
            moved = await answer_wait(conn, task, wait, note=said, event={"message": said})
            if moved is not None:
                await step_store.resolve(conn, task.id, step, resolution)
        return self._answered(moved)

    @staticmethod
    def _answered(moved: TaskRecord | None) -> TaskRecord:
        if moved is None:
            raise FailedPrecondition(
                "the task no longer waits for that (answered already, or stopped)",
                reason="NOT_WAITING",
            )
        return moved
