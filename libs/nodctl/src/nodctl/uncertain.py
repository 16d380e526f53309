"""nodctl uncertain: every UNCERTAIN private entry (claim), app action
execution and payment, across every person in the gateway's people store,
oldest first, with what the person found if they already checked it. Each
service lists one person's records only, so nodctl asks as each person in
turn, as the gateway does for their pages.

A person's check is kept on their task's step (the record itself stays
UNCERTAIN: nobody but the person knows what happened), so each record's
task is read for it."""

import asyncio
import datetime as dt
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from typing import Any

import grpc

from nod.approvals.v1 import approvals_pb2 as approvals
from nod.claims.v1 import claims_pb2 as claims
from nod.payments.v1 import payments_pb2 as payments
from nod.tasks.v1 import tasks_pb2 as tasks
from nod_gateway.peers import Nod, ServiceCallFailed
from nod_gateway.people import store
from nod_gateway.web import words
from nodctl.output import age, emit, stamp, warn
from nodctl.parts import Parts

COLUMNS = ("kind", "person", "task", "id", "uncertain_since", "age", "checked", "what")
# A record's task the tasks service doesn't have (a record made by another
# caller names any task id it likes): nobody checked it there.
NO_SUCH_TASK = (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.INVALID_ARGUMENT)
# What the person found, in the words the task page gives it.
FOUND = {
    tasks.RESOLUTION_HAPPENED: "it happened",
    tasks.RESOLUTION_DID_NOT_HAPPEN: "it did not happen",
}
PAGE = 500
# People asked at once: each is three list calls.
PEOPLE_AT_ONCE = 8


@dataclass
class Uncertain:
    kind: str
    person: str
    task: str
    id: str
    uncertain_since: dt.datetime | None
    what: str
    age: str = ""
    # What the person found when they checked, "" while nobody has.
    checked: str = ""


async def every_page(call: Callable[[str], Awaitable[Any]], items: str) -> list:
    found: list = []
    token = ""
    while True:
        reply = await call(token)
        found.extend(getattr(reply, items))
        token = reply.next_page_token
        if not token:
            return found


async def claims_of(nod: Nod) -> list[Uncertain]:
    listed = await every_page(
        lambda token: nod.claims.ListClaims(
            claims.ListClaimsRequest(
                state=claims.CLAIM_STATE_UNCERTAIN, page_size=PAGE, page_token=token
            )
        ),
        "claims",
    )
    return [
        Uncertain(
            "private entry",
            nod.name,
            claim.task_id,
            claim.id,
            stamp(claim.updated_at),
            f"{words.ENTRY.get(claim.kind, 'private entry')} on {claim.origin}",
        )
        for claim in listed
    ]


async def executions_of(nod: Nod) -> list[Uncertain]:
    # An execution exists once the person said yes: only approved ones can
    # be uncertain.
    listed = await every_page(
        lambda token: nod.approvals.ListApprovals(
            approvals.ListApprovalsRequest(
                state=approvals.APPROVAL_STATE_APPROVED, page_size=PAGE, page_token=token
            )
        ),
        "approvals",
    )
    return [
        Uncertain(
            "app action",
            nod.name,
            approval.task_id,
            approval.id,
            stamp(approval.finished_at) or stamp(approval.updated_at),
            approval.summary,
        )
        for approval in listed
        if approval.execution_state == approvals.EXECUTION_STATE_UNCERTAIN
    ]


async def payments_of(nod: Nod) -> list[Uncertain]:
    listed = await every_page(
        lambda token: nod.payments.ListPayments(
            payments.ListPaymentsRequest(
                state=payments.PAYMENT_STATE_UNCERTAIN, page_size=PAGE, page_token=token
            )
        ),
        "payments",
    )
    return [
        Uncertain(
            "payment",
            nod.name,
            payment.task_id,
            payment.id,
            stamp(payment.updated_at),
            f"{words.money(payment.amount_minor, payment.currency)} at {payment.merchant_origin}",
        )
        for payment in listed
    ]


async def checks_in(nod: Nod, task_id: str) -> dict[str, str]:
    """What the person found for each record their task's steps made that
    they checked: record id -> words. A record made outside a task, or
    by a task the tasks service doesn't have, has none."""
    if not task_id:
        return {}
    reply = await nod.tasks.ListTaskEvents(tasks.ListTaskEventsRequest(task_id=task_id))
    return {
        record: FOUND[step.resolution]
        for step in reply.steps
        if step.resolution in FOUND
        for record in (step.claim_id, step.approval_id, step.payment_id)
        if record
    }


async def mark_checked(nod: Nod, found: list[Uncertain]) -> list[str]:
    """Sets each record's `checked`; what could not be read."""
    problems: list[str] = []
    for task_id in sorted({record.task for record in found}):
        try:
            checks = await checks_in(nod, task_id)
        except ServiceCallFailed as failure:
            if failure.error.code in NO_SUCH_TASK:
                continue
            problems.append(f"{failure.label} did not show task {task_id}: {failure.error}")
            continue
        for record in found:
            if record.task == task_id:
                record.checked = checks.get(record.id, "")
    return problems


async def of_person(nod: Nod) -> tuple[list[Uncertain], list[str]]:
    """Their uncertain records, and what could not be listed."""
    found: list[Uncertain] = []
    problems: list[str] = []
    for listing in (claims_of, executions_of, payments_of):
        try:
            found.extend(await listing(nod))
        except ServiceCallFailed as failure:
            problems.append(f"{failure.label} did not list {nod.name}'s records: {failure.error}")
    problems += await mark_checked(nod, found)
    return found, problems


async def run(parts: Parts, *, as_json: bool) -> int:
    people = await parts.people()
    turns = asyncio.Semaphore(PEOPLE_AT_ONCE)

    async def in_turn(person: store.Person):
        async with turns:
            return await of_person(parts.as_person(person))

    answers = await asyncio.gather(*(in_turn(person) for person in people))
    now = dt.datetime.now(dt.UTC)
    found = sorted(
        (record for records, _ in answers for record in records),
        key=lambda record: record.uncertain_since or now,
    )
    for record in found:
        record.age = age(record.uncertain_since, now)
    problems = [problem for _, listed in answers for problem in listed]
    emit(
        [asdict(record) for record in found],
        COLUMNS,
        as_json=as_json,
        empty=f"Nothing is UNCERTAIN ({len(people)} people asked).",
    )
    for problem in problems:
        warn(problem)
    # Incomplete is not "nothing uncertain": a script must not read it so.
    return 1 if problems else 0
