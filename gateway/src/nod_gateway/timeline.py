"""A task's history as lines a person reads: each step with its state, each
model request's attempts, each private entry with its claim's state as a
badge, the waits and the end. Built the same way for the page and for each
live event, so a line looks the same however it arrived."""

import asyncio
from dataclasses import dataclass, field

from nod.approvals.v1 import approvals_pb2 as approvals
from nod.claims.v1 import claims_pb2 as claims
from nod.payments.v1 import payments_pb2 as payments
from nod.tasks.v1 import tasks_pb2 as tasks
from nod_gateway.peers import Nod, ServiceCallFailed
from nod_gateway.web import words

# Lines built at once for a page: most ask a service about their claim,
# decision or payment, and one after another a long task's page waited
# for each answer in turn.
LINES_AT_ONCE = 8


@dataclass
class Line:
    number: int
    kind: str
    at: str
    title: str
    detail: str = ""
    badge: tuple[str, str] | None = None
    # For an uncertain entry or step: what it means and what to do.
    explanation: str = ""
    extra: list[str] = field(default_factory=list)
    # The decision's or payment's own state beside the step's, e.g. "You
    # said yes" and "Done": what the person decided stays in view.
    more_badges: list[tuple[str, str]] = field(default_factory=list)


async def claim_badge(nod: Nod, claim_id: str) -> tuple[tuple[str, str], str, str]:
    """(badge, what the check found, explanation) for a step's claim."""
    try:
        claim = (await nod.claims.GetClaim(claims.GetClaimRequest(claim_id=claim_id))).claim
    except ServiceCallFailed:
        return ("Unknown: the claims service did not answer", "check"), "", ""
    found = words.CHECK.get(claim.check, "")
    explanation = words.UNCERTAIN_MEANS if claim.state == claims.CLAIM_STATE_UNCERTAIN else ""
    kind = words.ENTRY.get(claim.kind, "private entry")
    return words.badge(words.CLAIM, claim.state), f"{kind}; {found}" if found else kind, explanation


async def _add_approval(nod: Nod, made: Line, approval_id: str) -> None:
    try:
        reply = await nod.approvals.GetApproval(
            approvals.GetApprovalRequest(approval_id=approval_id)
        )
    except ServiceCallFailed:
        made.extra.append("The approvals service did not answer: its decision is not shown.")
        return
    approval = reply.approval
    made.more_badges.append(words.badge(words.APPROVAL, approval.state))
    if approval.execution_state:
        made.more_badges.append(words.badge(words.EXECUTION, approval.execution_state))
    if approval.execution_state == approvals.EXECUTION_STATE_UNCERTAIN:
        made.explanation = words.UNCERTAIN_MEANS
    if approval.possible_duplicate_of:
        made.extra.append("It may repeat an earlier action of this task.")


async def _add_payment(nod: Nod, made: Line, payment_id: str) -> None:
    try:
        reply = await nod.payments.GetPayment(payments.GetPaymentRequest(payment_id=payment_id))
    except ServiceCallFailed:
        made.extra.append("The payments service did not answer: the payment is not shown.")
        return
    payment = reply.payment
    made.more_badges.append(words.badge(words.PAYMENT, payment.state))
    if payment.outcome:
        made.extra.append(f"Payment: {words.OUTCOME.get(payment.outcome, '')}")
    if payment.state == payments.PAYMENT_STATE_UNCERTAIN:
        made.explanation = words.UNCERTAIN_MEANS


async def line(nod: Nod, event: tasks.TaskEvent) -> Line:
    at = words.when(event.at)
    number = event.number
    if event.kind in ("step.started", "step.ended", "step.resolved"):
        step = event.step
        title = f"Step {step.number}: {step.tool}"
        made = Line(number, event.kind, at, title, detail=step.arguments)
        made.badge = words.badge(words.STEP, step.state)
        if step.reason:
            made.extra.append(step.reason)
        if step.claim_id:
            made.badge, found, made.explanation = await claim_badge(nod, step.claim_id)
            made.extra.insert(0, found)
        elif step.state == tasks.STEP_STATE_UNCERTAIN:
            made.explanation = words.UNCERTAIN_MEANS
        if step.approval_id:
            await _add_approval(nod, made, step.approval_id)
        elif step.payment_id:
            await _add_payment(nod, made, step.payment_id)
        if step.resolution:
            made.extra.append(words.RESOLUTION.get(step.resolution, ""))
        return made
    if event.kind == "model.attempt":
        attempt = event.model_attempt
        detail = "answered" if not attempt.error else attempt.error
        if attempt.retried:
            detail += f"; trying again in {attempt.wait_s:.1f} s"
        return Line(
            number, event.kind, at, f"Model request {attempt.request}, attempt {attempt.attempt}",
            detail=detail,
        )  # fmt: skip
    if event.kind == "task.waiting":
        return Line(number, event.kind, at, "Waiting for you", detail=event.wait.prompt)
    if event.kind == "task.ended":
        badge = words.badge(words.TASK, event.state)
        return Line(number, event.kind, at, "Ended", detail=event.message, badge=badge)
    if event.kind == "person.said":
        return Line(number, event.kind, at, "You said", detail=event.message)
    title = words.badge(words.TASK, event.state)[0]
    return Line(number, event.kind, at, title, detail=event.message)


async def history(nod: Nod, task_id: str) -> list[Line]:
    """Every event so far, in order."""
    lines: list[Line] = []
    after = 0
    turns = asyncio.Semaphore(LINES_AT_ONCE)

    async def line_in_turn(event: tasks.TaskEvent) -> Line:
        async with turns:
            return await line(nod, event)

    while True:
        reply = await nod.tasks.ListTaskEvents(
            tasks.ListTaskEventsRequest(task_id=task_id, after_event=after, page_size=500)
        )
        lines.extend(await asyncio.gather(*(line_in_turn(event) for event in reply.events)))
        if not reply.more or not reply.events:
            return lines
        after = reply.events[-1].number
