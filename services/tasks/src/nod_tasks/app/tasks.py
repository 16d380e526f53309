"""The person's calls on their tasks: start, read, watch and continue.
Callers pass the person (`owner`); another person's task looks like none."""

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, replace

from nod_tasks.domain import prompt
from nod_tasks.domain.events import StepView, TaskEvent
from nod_tasks.domain.outcomes import judge
from nod_tasks.domain.pictures import PagePicture
from nod_tasks.domain.tasks import (
    ENDED_STATES,
    Move,
    TaskRecord,
    TaskState,
    check_answer,
    check_task_text,
    refuse_unless_ended,
)
from nod_tasks.store.database import Database, Transaction
from nod_tasks.store.erasure import WordsErased
from nod_tasks.store.tasks import Which
from nodkit import faults, listing, validation
from nodkit.errors import AlreadyExists, FailedPrecondition, InvalidArgument, NotFound
from nodkit.logging import get_logger
from nodkit.notices import Notices, announced_or_timeout

log = get_logger("nod_tasks.tasks")
MAX_EVENTS = 500


@dataclass(frozen=True)
class History:
    events: list[TaskEvent]
    steps: list[StepView]
    more: bool


class Tasks:
    def __init__(self, db: Database, notices: Notices, *, watch_poll_s: float) -> None:
        self._db = db
        self._notices = notices
        self._watch_poll_s = watch_poll_s

    async def start(self, owner: str, text: str, request_id: str) -> TaskRecord:
        text = check_task_text(text)
        request_id = validation.printable_id("request_id", request_id) if request_id else ""
        async with self._db.transaction() as tx:
            task = await tx.tasks.insert(owner, text, request_id or None)
            if task is None:
                # A resend after a lost answer finds the first task.
                task = await tx.tasks.get_by_request(owner, request_id)
                if task is None or task.text != text:
                    raise AlreadyExists(
                        "request_id was already used for another task", reason="REQUEST_ID_REUSED"
                    )
                return task
            await tx.say(task.id, prompt.Said(text))
        await faults.point("tasks.queued")
        log.info("task.started", task_id=task.id)
        return task

    async def get(self, owner: str, task_id: str) -> TaskRecord:
        task_id = validation.uuid_id("task_id", task_id)
        async with self._db.reads() as tx:
            task = await tx.tasks.get(owner, task_id)
            if task is None:
                raise NotFound("no such task", reason="TASK_NOT_FOUND")
            (task,) = await judged(tx, [task])
        return task

    async def list(
        self, owner: str, state: TaskState | None, page: listing.PageRequest
    ) -> listing.Page[TaskRecord]:
        async with self._db.reads() as tx:
            found = await tx.tasks.page_of(owner, state, page)
            return replace(found, items=await judged(tx, found.items))

    async def judged(self, tasks: Sequence[TaskRecord]) -> Sequence[TaskRecord]:
        """The tasks, each ended one with its outcome."""
        async with self._db.reads() as tx:
            return await judged(tx, tasks)

    async def history(self, owner: str, task_id: str, after: int, limit: int) -> History:
        task = await self.get(owner, task_id)
        limit = min(limit or 200, MAX_EVENTS)
        async with self._db.reads() as tx:
            events = await tx.events(task.id, after, limit + 1)
            steps = await tx.steps.of_task(task.id)
            looks = await tx.looks.of_task(task.id)
        views = [StepView.of(s, looks.get(s.number)) for s in steps]
        return History(events[:limit], views, len(events) > limit)

    async def step_picture(
        self, owner: str, task_id: str, number: int, *, look: bool = False
    ) -> PagePicture:
        """The picture of a step's page (or of the page its last look saw),
        for its owner only: another person's task answers as a step with
        none does (NOT_FOUND)."""
        task_id = validation.uuid_id("task_id", task_id)
        if number < 1:
            raise InvalidArgument("step", "must be a step's number (1 or more)")
        async with self._db.reads() as tx:
            if look:
                picture = await tx.looks.picture(owner, task_id, number)
            else:
                picture = await tx.screenshots.get(owner, task_id, number)
        if picture is None:
            raise NotFound("there is no picture of that step's page", reason="NO_SCREENSHOT")
        return picture

    async def erase_pictures(self, owner: str) -> int:
        """Every page picture of the person's tasks (the person is being
        removed, after their tasks were stopped); the tasks stay."""
        async with self._db.transaction() as tx:
            erased = await tx.screenshots.erase_all_of(owner)
            erased += await tx.looks.erase_pictures_of(owner)
        log.info("step_screenshots.erased", count=erased)
        return erased

    async def erase_words(self, owner: str) -> WordsErased:
        """What the person and nod wrote in the person's ended tasks (the
        person is being removed, after their tasks were stopped); the tasks
        and what the promise needs of them stay."""
        async with self._db.transaction() as tx:
            done = await tx.erase_words_of(owner)
        log.info("tasks.words_erased", count=done.erased, still_going=len(done.still_going))
        return done

    async def watch(
        self, owner: str, task_id: str, after: int
    ) -> AsyncIterator[tuple[TaskEvent, TaskRecord]]:
        """Every event after `after`, then each new one, until the task has
        ended and every event is out. It looks again when the task's events
        are announced (a trigger's NOTIFY), and every watch_poll_s regardless."""
        task = await self.get(owner, task_id)
        with self._notices.listen(task.id) as announced:
            while True:
                announced.clear()  # before the look: a later event wakes the wait below
                # One snapshot for both reads: a task seen ended is seen with
                # every event up to its end, so none is left out of the stream.
                async with self._db.snapshot() as tx:
                    events = await tx.events(task.id, after, MAX_EVENTS)
                    task = await tx.tasks.get(owner, task.id) or task
                    if events:
                        (task,) = await judged(tx, [task])
                for event in events:
                    after = event.number
                    yield event, task
                if not events and task.state in ENDED_STATES:
                    return
                if not events:
                    await announced_or_timeout(announced, self._watch_poll_s)

    async def continue_(
        self, owner: str, task_id: str, text: str, request_id: str = ""
    ) -> TaskRecord:
        """The person's explicit continue: a new run that starts from what
        happened (the model sees every step and its end); nothing is redone.
        With a request id, once: a resend answers the task as it is now."""
        text = check_answer(text)
        request_id = validation.printable_id("request_id", request_id) if request_id else ""
        task = await self.get(owner, task_id)
        async with self._db.transaction() as tx:
            # Written before the move: a racing resend waits here for this
            # transaction and then finds the row; a refused Continue rolls
            # it back, so the id stays free for a Continue that counts.
            if request_id and not await tx.tasks.record_continue(owner, request_id, task.id, text):
                if await tx.tasks.continue_request(owner, request_id) != (task.id, text):
                    raise AlreadyExists(
                        "request_id was already used for another Continue",
                        reason="REQUEST_ID_REUSED",
                        field="request_id",
                    )
                log.info("task.continue_resent", task_id=task.id)
                return await tx.tasks.get(owner, task.id) or task
            refuse_unless_ended(task)
            moved = await tx.tasks.move(
                Move.CONTINUE,
                Which(task_id=task.id, owner=owner, state=task.state),
                actor=owner,
                message="",
                note=text,
                person_words=text,
                new_run=True,
            )
            if not moved:
                raise FailedPrecondition("the task changed meanwhile; look again", reason="RACED")
            await tx.say(task.id, prompt.Said(f"The person says: {text}"))
        await faults.point("tasks.continue_received")
        return moved[0]


async def judged(tx: Transaction, tasks: Sequence[TaskRecord]) -> list[TaskRecord]:
    """Each ended task with its outcome, judged from its steps' facts (one
    read for all of them); a task still going has none."""
    facts = await tx.steps.facts_of([task.id for task in tasks if task.state in ENDED_STATES])
    return [
        replace(task, outcome=judge(task.state, facts[task.id])) if task.id in facts else task
        for task in tasks
    ]
