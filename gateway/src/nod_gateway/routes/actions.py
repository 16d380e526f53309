"""What the person answers on a task's page: yes or no to an app action or
a payment, the private form, a question, and what they found when they
checked something uncertain. Each answer is one call; a refused one changes
nothing and the card says why. With htmx the card is swapped in place;
without JavaScript the form posts and the task page comes back."""

import grpc
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.exceptions import HTTPException

from nod.approvals.v1 import approvals_pb2 as approvals
from nod.claims.v1 import claims_pb2 as claims
from nod.payments.v1 import payments_pb2 as payments
from nod.tasks.v1 import tasks_pb2 as tasks
from nod_gateway import waits
from nod_gateway.peers import ServiceCallFailed
from nod_gateway.resolutions import FOUND, NOTE_MAX_LENGTH, resolution_request
from nod_gateway.routes import deciding
from nod_gateway.web import fields, words
from nod_gateway.web.render import fragment, is_fragment, page
from nod_gateway.web.sessions import PostedForm, SignedIn
from nodkit import faults

router = APIRouter()
APPROVAL_DECISIONS = {"yes": approvals.DECISION_YES, "no": approvals.DECISION_NO}
PAYMENT_DECISIONS = {"yes": payments.DECISION_YES, "no": payments.DECISION_NO}
# The value field PutPrivateEntry takes for each kind of form.
FORM_ENTRIES = {
    tasks.FORM_KIND_ONE_TIME_CODE: (claims.ENTRY_KIND_ONE_TIME_CODE, "code"),
    tasks.FORM_KIND_PASSWORD: (claims.ENTRY_KIND_TYPED_PASSWORD, "password"),
    tasks.FORM_KIND_LOGIN: (claims.ENTRY_KIND_TYPED_PASSWORD, "password"),
    tasks.FORM_KIND_SECURITY_CODE: (claims.ENTRY_KIND_SECURITY_CODE, "security_code"),
}
ALREADY = (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ALREADY_EXISTS)


def _back(request: Request, task_id: str, card: str | None = None) -> Response:
    if card is not None and is_fragment(request):
        return HTMLResponse(card)
    return RedirectResponse(f"/tasks/{task_id}", status_code=303)


def _card_answer(request: Request, task_id: str, template: str, note: str, **card) -> Response:
    """The decided card in place of the old one; a note (already decided,
    needs the second confirmation) also goes into the timeline, where it
    stays when the live panel moves on to the task's next state."""
    html = fragment(request, template, note=note, **card)
    if note:
        html += deciding.timeline_note(request, note)
    return _back(request, task_id, html)


@router.get("/approvals/{approval_id}")
async def approval_page(request: Request, approval_id: str, asked: SignedIn):
    """One decision on a page of its own (a link from elsewhere, or a
    proposal the task is no longer waiting for)."""
    card = await waits.approval_card(asked.nod, approval_id)
    return page(request, "approval.html", **vars(card), note="")


@router.post("/approvals/{approval_id}/decide")
async def decide_action(request: Request, approval_id: str, asked: PostedForm):
    answer = fields.choice(asked.form, "decision", tuple(APPROVAL_DECISIONS))
    decision = APPROVAL_DECISIONS[answer]
    confirmed = asked.form.get("confirm_duplicate") == "yes"
    async with deciding.one_at_a_time(f"approval:{approval_id}"):
        # Another tab's press that came first is seen here, not raced.
        before = await waits.approval_card(asked.nod, approval_id)
        note = deciding.already_decided(before.approval)
        if not note and decision == approvals.DECISION_YES:
            note = await deciding.task_stopped(asked.nod, before.approval.task_id)
        if not note:
            await faults.point("gateway.decision_posted")
            note = await _decide(asked, approval_id, decision, confirmed)
    card = await waits.approval_card(asked.nod, approval_id)
    return _card_answer(request, card.approval.task_id, "_approval.html", note, **vars(card))


async def _decide(
    asked, approval_id: str, decision: approvals.Decision.ValueType, confirmed: bool
) -> str:
    """The note for the card: empty for a decision that counted."""
    try:
        reply = await asked.nod.approvals.Decide(
            approvals.DecideRequest(
                approval_id=approval_id, decision=decision, confirm_duplicate=confirmed
            )
        )
    except ServiceCallFailed as failure:
        if failure.error.code not in ALREADY:
            raise
        return deciding.refusal_note(failure)
    # A winning yes answers once its execution has ended; a yes that lost a
    # race (another gateway) gets the approval as it is, maybe still running.
    if reply.approval.execution_state == approvals.EXECUTION_STATE_RUNNING:
        return deciding.ALREADY_YES
    return ""


@router.post("/payments/{payment_id}/decide")
async def decide_payment(request: Request, payment_id: str, asked: PostedForm):
    decision = PAYMENT_DECISIONS[fields.choice(asked.form, "decision", tuple(PAYMENT_DECISIONS))]
    async with deciding.one_at_a_time(f"payment:{payment_id}"):
        payment, _earlier = await waits.payment_card(asked.nod, payment_id)
        note = deciding.payment_already_decided(payment)
        if not note and decision == payments.DECISION_YES:
            note = await deciding.task_stopped(asked.nod, payment.task_id)
        if not note:
            try:
                await asked.nod.payments.ConfirmPayment(
                    payments.ConfirmPaymentRequest(payment_id=payment_id, decision=decision)
                )
            except ServiceCallFailed as failure:
                if failure.error.code not in ALREADY:
                    raise
                note = deciding.refusal_note(failure)
    payment, earlier = await waits.payment_card(asked.nod, payment_id)
    return _card_answer(
        request, payment.task_id, "_payment.html", note, payment=payment, earlier=earlier
    )


@router.post("/tasks/{task_id}/forms/{form_id}")
async def submit_private_form(task_id: str, form_id: str, asked: PostedForm):
    """A picked saved login, or a typed value that goes straight into the
    vault as a one-time entry; the task only ever gets its id."""
    nod = asked.nod
    task = (await nod.tasks.GetTask(tasks.GetTaskRequest(task_id=task_id))).task
    if task.state != tasks.TASK_STATE_WAITING or task.wait.id != form_id:
        # Stopped, or answered already: nothing is stored or entered.
        raise _gone(task)
    picked = fields.text(asked.form, "item_id", max_length=64, required=False)
    await faults.point("gateway.form_posted")
    if not picked:
        kind, field_name = FORM_ENTRIES.get(
            task.wait.form_kind, FORM_ENTRIES[tasks.FORM_KIND_ONE_TIME_CODE]
        )
        values = {field_name: fields.text(asked.form, "value", max_length=1000)}
        username = fields.text(asked.form, "username", max_length=500, required=False)
        if username and kind == claims.ENTRY_KIND_TYPED_PASSWORD:
            values["username"] = username
        # The form's own id: posted twice (a double click, a resend after a
        # lost answer), it is one entry. Optional: a page shown before forms
        # carried one still posts.
        request_id = fields.text(asked.form, "request_id", max_length=64, required=False)
        # Where it may be entered comes from the task's form (the page the
        # task read), never from what was posted: a page can't widen it. A
        # security code goes with its card, under the card's binding.
        where = (
            {}
            if kind == claims.ENTRY_KIND_SECURITY_CODE
            else {"origin": task.wait.origin, "frame_origin": task.wait.frame_origin}
        )
        entry = await nod.vault.PutPrivateEntry(
            claims.PutPrivateEntryRequest(
                task_id=task_id, kind=kind, fields=values, request_id=request_id, **where
            )
        )
        picked = entry.id
    try:
        await nod.tasks.SubmitPrivateForm(
            tasks.SubmitPrivateFormRequest(task_id=task_id, form_id=form_id, item_id=picked)
        )
    except ServiceCallFailed as failure:
        if failure.error.code not in ALREADY and failure.error.code != grpc.StatusCode.NOT_FOUND:
            raise
        now = await _task_if_read(asked, task.id)
        if (
            failure.error.code == grpc.StatusCode.NOT_FOUND
            or now is None
            or now.state in words.TASK_ENDED
        ):
            # Stopped in between (or unknown): the typed value must not
            # outlive the task. A task still going was answered by another
            # post of this form, maybe with this very entry: it is left to
            # the task, whose end discards whatever it did not use.
            await nod.vault.DiscardPrivateEntries(
                claims.DiscardPrivateEntriesRequest(task_id=task_id)
            )
        if failure.error.code in ALREADY:
            raise _gone(now or task) from None
        raise
    return RedirectResponse(f"/tasks/{task_id}", status_code=303)


@router.post("/tasks/{task_id}/questions/{question_id}")
async def answer_question(task_id: str, question_id: str, asked: PostedForm):
    text = fields.text(asked.form, "text")
    await asked.nod.tasks.AnswerQuestion(
        tasks.AnswerQuestionRequest(task_id=task_id, question_id=question_id, text=text)
    )
    return RedirectResponse(f"/tasks/{task_id}", status_code=303)


@router.post("/tasks/{task_id}/steps/{step}/resolve")
async def resolve_uncertain(task_id: str, step: int, asked: PostedForm):
    """ "I checked": what the person found is recorded beside the step, which
    stays uncertain. "Try again" says it did not happen and asks for a new
    attempt: the task then makes a new request, never the old one again."""
    found = fields.choice(asked.form, "found", FOUND)
    note = fields.text(asked.form, "note", max_length=NOTE_MAX_LENGTH, required=False)
    step = fields.step_number(step)
    await asked.nod.tasks.ResolveUncertain(resolution_request(task_id, step, found, note))
    return RedirectResponse(f"/tasks/{task_id}", status_code=303)


@router.post("/tasks/{task_id}/steps/{step}/look")
async def look_for_me(task_id: str, step: int, asked: PostedForm):
    """Look for me (G14): nod reads, read-only, where the uncertain step's
    result would show; what it found shows under the step. It decides
    nothing: the person still says what happened."""
    request = tasks.LookForMeRequest(task_id=task_id, step=fields.step_number(step))
    await asked.nod.tasks.LookForMe(request)
    return RedirectResponse(f"/tasks/{task_id}", status_code=303)


async def _task_if_read(asked, task_id: str) -> tasks.Task | None:
    try:
        return (await asked.nod.tasks.GetTask(tasks.GetTaskRequest(task_id=task_id))).task
    except ServiceCallFailed:
        return None


def _gone(task: tasks.Task) -> HTTPException:
    if task.state == tasks.TASK_STATE_STOPPED:
        why = "This task was stopped, so it no longer waits for this form"
    else:
        why = "This task no longer waits for this form (it was answered, or the task moved on)"
    return HTTPException(409, f"{why}. Nothing was entered, and what you typed was not kept.")
