"""How a press on a decision card is told apart from one that came too late
(another tab, a resend, a task stopped meanwhile) or was refused (a possible
duplicate without its second confirmation), and the words the card then
shows.

The services decide once whatever the gateway does; this only makes the
late press say so. Presses on one decision take turns inside this gateway
process, so the second one reads the first one's outcome instead of racing
it; across gateway replicas the services still run it once and a late yes
is recognised by its still-running execution."""

import asyncio
import contextlib
import datetime
import urllib.parse
import weakref
from collections.abc import AsyncIterator

import grpc
from fastapi import Request

from nod.approvals.v1 import approvals_pb2 as approvals
from nod.payments.v1 import payments_pb2 as payments
from nod.tasks.v1 import tasks_pb2 as tasks
from nod_gateway.peers import Nod, ServiceCallFailed
from nod_gateway.timeline import Line
from nod_gateway.web import words
from nod_gateway.web.render import fragment

_turns: "weakref.WeakValueDictionary[str, asyncio.Lock]" = weakref.WeakValueDictionary()

ALREADY_YES = (
    "This was already decided in another tab or window: you said yes. It runs once;"
    " this press ran nothing."
)
ALREADY = "This was already decided in another tab or window ({state}). This press ran nothing."
TASK_STOPPED = (
    "This task was stopped, so nothing more of it runs: this press did nothing."
    " To do it anyway, start a new task."
)
NEEDS_CONFIRMATION = (
    "This may repeat the earlier action. To run it anyway, tick “Yes, I know it may repeat"
    " the earlier one” and press Yes again. Nothing ran."
)


@contextlib.asynccontextmanager
async def one_at_a_time(key: str) -> AsyncIterator[None]:
    lock = _turns.get(key)
    if lock is None:
        lock = _turns[key] = asyncio.Lock()
    async with lock:  # the local name keeps the lock alive while it is held
        yield


def already_decided(approval: approvals.Approval) -> str:
    if approval.state == approvals.APPROVAL_STATE_PENDING:
        return ""
    if approval.state == approvals.APPROVAL_STATE_APPROVED:
        return ALREADY_YES
    return ALREADY.format(state=words.badge(words.APPROVAL, approval.state)[0].lower())


async def task_stopped(nod: Nod, task_id: str) -> str:
    """A yes to an action or a payment of a stopped task does nothing (G11).

    Defence in depth only: the rule is the tasks service's, which cancels a
    stopped task's approvals and payments itself and retries until each
    service has heard. This check covers the window before a service that
    was down hears of the Stop; it decides nothing the services don't."""
    try:
        task = (await nod.tasks.GetTask(tasks.GetTaskRequest(task_id=task_id))).task
    except ServiceCallFailed as failure:
        if failure.error.code == grpc.StatusCode.NOT_FOUND:
            return ""  # proposed outside any task of this person's
        raise
    return TASK_STOPPED if task.state == tasks.TASK_STATE_STOPPED else ""


def payment_already_decided(payment: payments.Payment) -> str:
    if payment.state == payments.PAYMENT_STATE_AWAITING_CONFIRMATION:
        return ""
    return ALREADY.format(state=words.badge(words.PAYMENT, payment.state)[0].lower())


def refusal_note(failure: ServiceCallFailed) -> str:
    """A refused decision, in words; nothing was recorded or run."""
    if failure.error.reason == "DUPLICATE_NEEDS_CONFIRMATION":
        return NEEDS_CONFIRMATION
    message = failure.error.message.rstrip(".")
    return f"This can't be decided now: {message}. Nothing ran."


def timeline_note(request: Request, note: str) -> str:
    """An out-of-band line for htmx to add to a task page's timeline (other
    pages with a card have none: the note stays in the card there)."""
    shown_on = urllib.parse.urlsplit(request.headers.get("hx-current-url", "")).path
    if not shown_on.startswith("/tasks/"):
        return ""
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    line = Line(0, "person.pressed", now, "Your press in this tab", detail=note)
    item = fragment(request, "_line.html", line=line)
    return f'<ol hx-swap-oob="beforeend:#timeline">{item}</ol>'
