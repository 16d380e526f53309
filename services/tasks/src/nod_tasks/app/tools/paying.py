"""request_payment and pay (G8): the person's yes for that merchant and
amount, then the saved card entered under a card claim, its outcome read
from the page. Interrupted means UNCERTAIN; the same order is never paid
twice in a task (the payments service refuses it)."""

from nod.claims.v1 import claims_pb2 as claims
from nod.payments.v1 import payments_pb2 as payments
from nod_tasks.app.tools.base import Arguments, Outcome, StepContext, WaitFor
from nod_tasks.app.tools.entering import Entry, Submitted, enter
from nod_tasks.domain import steps
from nod_tasks.domain.checks import payment_outcome
from nod_tasks.domain.pages import for_model
from nod_tasks.domain.steps import StepEnd, StepState
from nod_tasks.domain.tasks import FormKind, Wait, WaitKind
from nodkit.client import NodRpcError

OUTCOMES = {
    "paid": payments.PAYMENT_OUTCOME_PAID,
    "declined": payments.PAYMENT_OUTCOME_DECLINED,
    "unknown": payments.PAYMENT_OUTCOME_UNKNOWN,
}


def _amount(minor: int, currency: str) -> str:
    return f"{minor / 100:.2f} {currency}"


async def request_payment(ctx: StepContext, args: Arguments) -> Outcome:
    card = next((c for c in ctx.context.cards if c.id == str(args["card_id"])), None)
    if card is None:
        return steps.not_run("there is no saved card with that id")
    request = payments.CreatePaymentRequest(
        task_id=ctx.task.id,
        merchant_origin=str(args["merchant_origin"]),
        amount_minor=int(args["amount_minor"]),
        currency=str(args["currency"]),
        description=str(args["description"]),
        card_item_id=card.id,
        card_label=card.number,
        order_reference=str(args.get("order_reference", "")),
        request_id=ctx.operation_id,
    )
    try:
        reply = await ctx.peers.payments.call(
            ctx.peers.payments_stub.CreatePayment, request, ctx.owner
        )
    except NodRpcError as error:
        if error.may_have_happened:
            return steps.uncertain(f"the payment request's answer was lost ({error.code.name})")
        return steps.failed(f"the payment was not requested: {error.message}")
    payment = reply.payment
    prompt = (
        f"Pay {_amount(payment.amount_minor, payment.currency)} to {payment.merchant_origin}"
        f" with {payment.card_label}: {payment.description}"
    )
    return WaitFor(
        Wait(WaitKind.PAYMENT, payment.id, prompt=prompt, step=ctx.step.number),
        made={"payment_id": payment.id},
    )


async def pay(ctx: StepContext, args: Arguments) -> Outcome:
    payment_id = str(args["payment_id"])
    companion = ""
    if form_id := str(args.get("security_code_form_id", "")):
        form = ctx.task.forms.get(form_id)
        if form is None or form["kind"] != FormKind.SECURITY_CODE.value:
            return steps.not_run("no filled security-code form has that id")
        companion = form["item_id"]
    try:
        got = await ctx.peers.payments.call(
            ctx.peers.payments_stub.GetPayment,
            payments.GetPaymentRequest(payment_id=payment_id),
            ctx.owner,
        )
        if got.payment.task_id != ctx.task.id:
            return steps.not_run("that payment belongs to another task")
        started = await ctx.peers.payments.call(
            ctx.peers.payments_stub.StartCardEntry,
            payments.StartCardEntryRequest(payment_id=payment_id),
            ctx.owner,
        )
    except NodRpcError as error:
        if error.may_have_happened:
            return steps.uncertain(f"the card entry may have started ({error.code.name})")
        return steps.failed(f"the card entry did not start: {error.message}", payment_id=payment_id)
    entry = Entry(
        claims.ENTRY_KIND_CARD,
        got.payment.card_item_id,
        dict(args["fields"]),
        str(args["submit"]),
        started.card_operation_id,
        companion_entry_id=companion,
    )
    done = await enter(ctx, entry)
    return await _record(ctx, payment_id, done)


async def _record(ctx: StepContext, payment_id: str, done: Submitted | StepEnd) -> StepEnd:
    """The card entry's end, then the outcome read from the page, on the payment."""
    stub = ctx.peers.payments_stub
    try:
        if not isinstance(done, Submitted):
            await ctx.peers.payments.call(
                stub.RecordUncertain,
                payments.RecordUncertainRequest(
                    payment_id=payment_id, claim_id=done.claim_id or "", reason=done.reason[:480]
                ),
                ctx.owner,
            )
            return steps.uncertain(done.reason, payment_id=payment_id, claim_id=done.claim_id)
        await ctx.peers.payments.call(
            stub.RecordSubmitted,
            payments.RecordSubmittedRequest(payment_id=payment_id, claim_id=done.claim.id),
            ctx.owner,
        )
        outcome = payment_outcome(done.page)
        await ctx.peers.payments.call(
            stub.RecordOutcome,
            payments.RecordOutcomeRequest(payment_id=payment_id, outcome=OUTCOMES[outcome.value]),
            ctx.owner,
        )
    except NodRpcError as error:
        return steps.uncertain(
            f"the payment's end was not recorded ({error.code.name})", payment_id=payment_id
        )
    return StepEnd(
        StepState.DONE,
        {
            "outcome": "submitted",
            "paid": outcome.value,
            "payment_id": payment_id,
            "page": for_model(done.page),
        },
        claim_id=done.claim.id,
        payment_id=payment_id,
    )
