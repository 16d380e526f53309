"""One task: its page (the timeline so far and what it needs from the
person), the live timeline, the pictures of its steps' pages, Stop and
Continue."""

import asyncio
import contextlib
import uuid

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy.exc import SQLAlchemyError
from sse_starlette import EventSourceResponse, ServerSentEvent

from nod.tasks.v1 import tasks_pb2 as tasks
from nod_gateway import timeline, waits
from nod_gateway.peers import Nod, ServiceCallFailed
from nod_gateway.people import store
from nod_gateway.web import fields, words
from nod_gateway.web.errors import explain
from nod_gateway.web.render import fragment, page
from nod_gateway.web.sessions import PostedForm, SignedIn
from nodkit.logging import get_logger

log = get_logger("nod_gateway.task")
router = APIRouter()
# How long a browser waits before reconnecting a live timeline that dropped.
RETRY_MS = 2000
# The pictures the tasks service keeps, and all a step's page is served as.
PICTURE_TYPES = frozenset({"image/png", "image/jpeg"})


async def get_task(nod: Nod, task_id: str) -> tasks.Task:
    return (await nod.tasks.GetTask(tasks.GetTaskRequest(task_id=task_id))).task


def panel_key(task: tasks.Task, wait: waits.Wait | None) -> str:
    """Changes exactly when the panel shows something new, so a live update
    never wipes a form the person is filling in."""
    parts = [str(task.state), str(task.wait.kind), task.wait.id, str(task.run)]
    # How it came out: recomputed when the person resolves an uncertain step.
    parts += [str(task.outcome), task.outcome_reason, str(task.outcome_step)]
    if wait and wait.approval:
        parts += [str(wait.approval.state), str(wait.approval.execution_state)]
    if wait and wait.payment:
        parts += [str(wait.payment.state)]
    return ":".join(parts)


async def panel_values(nod: Nod, task: tasks.Task) -> dict:
    wait = await waits.current(nod, task)
    return {
        "task": task,
        "wait": wait,
        "ended": task.state in words.TASK_ENDED,
        "key": panel_key(task, wait),
        # The panel's forms (Continue, the private form) carry it: the same
        # form posted twice is one Continue, one entry. Not in the key: a
        # live update that shows nothing new keeps the form, and its id.
        "request_id": uuid.uuid4().hex,
    }


@router.get("/tasks/{task_id}")
async def task_page(request: Request, task_id: str, asked: SignedIn):
    # The lines first, then the task: the panel is then at least as new as
    # the last line, and the live timeline resumes after the last event
    # (read the other way round, a task that starts waiting in between
    # would show "Running" until its next event).
    read = await timeline.read(asked.nod, task_id)
    values = await panel_values(asked.nod, read.task)
    return page(request, "task.html", lines=read.lines, after=read.after, **values)


def _last_event(request: Request, after: int) -> int:
    """A reconnecting EventSource sends the last id it saw; it wins."""
    sent = request.headers.get("last-event-id", "")
    return int(sent) if sent.isdigit() and len(sent) < 19 else max(after, 0)


@router.get("/tasks/{task_id}/events")
async def task_events(request: Request, task_id: str, asked: SignedIn, after: int = 0):
    nod = asked.nod
    await get_task(nod, task_id)  # someone else's task: 404 before any stream
    request_from = tasks.WatchTaskRequest(task_id=task_id, after_event=_last_event(request, after))

    async def stream():
        ended = None
        # While the stream is open the person's page is: no email nudges them.
        seen = asyncio.ensure_future(_keep_seen(request, nod.person))
        try:
            async for reply in nod.watch_task(request_from):
                # Every frame carries its event's number, a line's and the
                # panel's alike: a reconnecting browser resumes after the
                # last event it saw, whether or not that event made a line.
                number = str(reply.event.number)
                made = await timeline.line(nod, reply.event, reply.task)
                if made is not None:
                    # A step's line replaces the one shown for the step.
                    html = fragment(request, "_line.html", line=made)
                    yield ServerSentEvent(html, event="line", id=number)
                values = await panel_values(nod, reply.task)
                html = fragment(request, "_now.html", **values)
                yield ServerSentEvent(html, event="panel", id=number)
                ended = values["ended"]
            if ended is None:
                # Nothing new: the browser had every line (a drop came before
                # the end frame). Say whether there is anything left to wait for.
                ended = (await get_task(nod, task_id)).state in words.TASK_ENDED
        except ServiceCallFailed as failure:
            yield ServerSentEvent(explain(failure).message, event="problem", retry=RETRY_MS)
            return
        finally:
            seen.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await seen
        if ended:
            yield ServerSentEvent("", event="end")

    return EventSourceResponse(stream(), ping=15, headers={"x-accel-buffering": "no"})


async def _keep_seen(request: Request, person: str) -> None:
    """Says the person has a page open, now and every page_seen_every_s
    (well inside the nudge delay), in the database every replica reads."""
    parts = request.app.state.parts
    while True:
        try:
            await store.saw_page(parts.engine, person)
        except (SQLAlchemyError, OSError) as error:  # the database away: the stream goes on
            log.warning("gateway.page_seen_unrecorded", error=type(error).__name__)
        await asyncio.sleep(parts.settings.page_seen_every_s)


@router.get("/tasks/{task_id}/steps/{step}/page")
async def step_page(task_id: str, step: int, asked: SignedIn) -> Response:
    """The picture of the page a step left (private fields and shown-back
    private values painted over by the browser), for the task's owner
    alone: another person's task, or a step with none, is 404. Never
    cached: it shows the person's own pages."""
    return await _picture(asked, task_id, step, look=False)


@router.get("/tasks/{task_id}/steps/{step}/look")
async def look_page(task_id: str, step: int, asked: SignedIn) -> Response:
    """The picture of the page nod's last look at the step saw, as above."""
    return await _picture(asked, task_id, step, look=True)


async def _picture(asked: SignedIn, task_id: str, step: int, *, look: bool) -> Response:
    reply = await asked.nod.tasks.GetStepScreenshot(
        tasks.GetStepScreenshotRequest(task_id=task_id, step=fields.step_number(step), look=look)
    )
    if reply.media_type not in PICTURE_TYPES:
        raise HTTPException(404, "There is nothing here, or it isn't yours.")
    return Response(
        reply.image,
        media_type=reply.media_type,
        headers={"cache-control": "private, no-store"},
    )


@router.post("/tasks/{task_id}/stop")
async def stop_task(task_id: str, asked: PostedForm) -> Response:
    # Stop of a task that isn't the person's stops nothing; say so as 404.
    await get_task(asked.nod, task_id)
    await asked.nod.tasks.Stop(tasks.StopRequest(task_id=task_id))
    return RedirectResponse(f"/tasks/{task_id}", status_code=303)


@router.post("/tasks/{task_id}/continue")
async def continue_task(task_id: str, asked: PostedForm) -> Response:
    text = fields.text(asked.form, "text", required=False) or "Continue."
    # Optional: a page shown before forms carried one still posts.
    request_id = fields.text(asked.form, "request_id", max_length=64, required=False)
    await asked.nod.tasks.Continue(
        tasks.ContinueRequest(task_id=task_id, text=text, request_id=request_id)
    )
    return RedirectResponse(f"/tasks/{task_id}", status_code=303)
