"""The lines of a task's events: a step's (once, changing in place), a model
request that failed or was tried again, what the person said, each end;
and the whole timeline of a task as a page shows it."""

import asyncio

from nod.tasks.v1 import tasks_pb2 as tasks
from nod_gateway.peers import Nod
from nod_gateway.timeline.lines import (
    LINES_AT_ONCE,
    SAID_EVENTS,
    STEP_EVENTS,
    Line,
    Timeline,
)
from nod_gateway.timeline.lookups import look_up
from nod_gateway.timeline.steps import describe_step
from nod_gateway.web import words


def describe(
    event: tasks.TaskEvent, task: tasks.Task | None = None, *, latest_end: bool = True
) -> Line | None:
    """The line of an event that is no step's: a model request that failed
    or was tried again, what the person said, an end (with its outcome when
    `task` is the task as it ended: `latest_end`, its last end). None for an
    event that is no line: a good model answer, queued, running, waiting
    (the panel shows it), the task's own words it started with (its title)."""
    at, clock, number = words.when(event.at), words.clock(event.at), event.number
    if event.kind in STEP_EVENTS:
        return describe_step(event.step, number=number, at=at, clock=clock, task_id=event.task_id)
    if event.kind == "model.attempt":
        attempt = event.model_attempt
        if not attempt.error and not attempt.retried:
            return None
        title = words.model_attempt(attempt.status, attempt.retried, attempt.wait_s)
        folded = [(words.ATTEMPT_LABEL, words.ATTEMPT_FACTS.format(**_attempt_facts(attempt)))]
        if attempt.error:
            folded.append((words.ERROR_LABEL, attempt.error))
        return Line(number, event.kind, at, title, clock=clock, folded=folded)
    if event.kind == "task.ended":
        ended_so = task is not None and latest_end and task.state == event.state
        shown = task if ended_so else None
        badge = words.task_badge(shown or tasks.Task(state=event.state))
        title = words.ENDED.get(event.state, words.ENDED_ANYWAY)
        folded = [(words.NOTE_LABEL, event.message)] if event.message else []
        return Line(number, event.kind, at, title, badge=badge, clock=clock, folded=folded)
    said = event.person_words.strip() if event.kind in SAID_EVENTS else ""
    if said and not (task is not None and said == task.text.strip()):
        title = words.SAID.format(text=said)
        return Line(number, "person.said", at, title, clock=clock)
    return None


def _attempt_facts(attempt: tasks.ModelAttempt) -> dict[str, int]:
    return {"request": attempt.request, "attempt": attempt.attempt}


async def line(
    nod: Nod, event: tasks.TaskEvent, task: tasks.Task | None = None, *, latest_end: bool = True
) -> Line | None:
    """The event's line (None: it makes none). `task`: the task as it stands
    after the event, for an end's outcome (when the end is its `latest_end`)
    and the words it started with."""
    if event.kind not in STEP_EVENTS:
        return describe(event, task, latest_end=latest_end)
    found = await look_up(nod, event.step)
    at, clock = words.when(event.at), words.clock(event.at)
    return describe_step(
        event.step, found, number=event.number, at=at, clock=clock, task_id=event.task_id
    )


def one_per_line(
    events: list[tasks.TaskEvent], steps: list[tasks.Step] | None = None
) -> list[tasks.TaskEvent]:
    """The events that make the lines: a step's last, in the place of its
    first (its line changes in place), with the step as it is now (`steps`:
    a step waiting for the person has its payment or decision by now);
    every other event as it is."""
    chosen: dict[str, tasks.TaskEvent] = {}
    for event in events:
        key = f"step:{event.step.number}" if event.kind in STEP_EVENTS else f"event:{event.number}"
        chosen[key] = event
    now = {step.number: step for step in steps or []}
    made = []
    for event in chosen.values():
        if event.kind in STEP_EVENTS and event.step.number in now:
            fresh = tasks.TaskEvent()
            fresh.CopyFrom(event)
            fresh.step.CopyFrom(now[event.step.number])
            event = fresh
        made.append(event)
    return made


async def read(nod: Nod, task_id: str) -> Timeline:
    """Every line so far, in order, and the task as read after them."""
    events: list[tasks.TaskEvent] = []
    after = 0
    while True:
        reply = await nod.tasks.ListTaskEvents(
            tasks.ListTaskEventsRequest(task_id=task_id, after_event=after, page_size=500)
        )
        events.extend(reply.events)
        if not reply.more or not reply.events:
            break
        after = reply.events[-1].number
    steps = list(reply.steps)
    task = (await nod.tasks.GetTask(tasks.GetTaskRequest(task_id=task_id))).task
    # Only the last end is the task's present one, with its outcome.
    ends = [event.number for event in events if event.kind == "task.ended"]
    last_end = ends[-1] if ends else 0
    turns = asyncio.Semaphore(LINES_AT_ONCE)

    async def line_in_turn(event: tasks.TaskEvent) -> Line | None:
        async with turns:
            return await line(nod, event, task, latest_end=event.number == last_end)

    made = await asyncio.gather(*(line_in_turn(event) for event in one_per_line(events, steps)))
    return Timeline(
        [one for one in made if one is not None], events[-1].number if events else 0, task
    )


async def history(nod: Nod, task_id: str) -> list[Line]:
    """Every line so far, in order."""
    return (await read(nod, task_id)).lines
