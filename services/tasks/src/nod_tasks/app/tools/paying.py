"""request_payment and pay (G8): the person's yes for that merchant and
amount, then the saved card entered under a card claim, its outcome read
from the page (or, on a checkout with a review page, the order it awaits:
app/tools/ordering.py places it). Interrupted means UNCERTAIN; the same order is never paid
twice in a task (the payments service refuses it). A pay step cut off
before it recorded its end (Stop, a crash) is settled with the payments
service when the task's end is told (app/endings.py)."""

import asyncio

from nod_tasks.app.tools.base import Arguments, Outcome, StepContext, WaitFor
from nod_tasks.app.tools.entering import EntryMade, enter, page_after
from nod_tasks.app.tools.entries import last_page
from nod_tasks.domain import steps
from nod_tasks.domain.checks import (
    PaymentOutcome,
    asks_bank_confirmation,
    awaits_order,
    payment_outcome,
)
from nod_tasks.domain.outside import Entry, EntryKind, Payment, PaymentRequest
from nod_tasks.domain.pages import Page, origin_of
from nod_tasks.domain.reasons import Reason
from nod_tasks.domain.results import AwaitsOrder, Paid
from nod_tasks.domain.steps import StepEnd, StepState
from nod_tasks.domain.tasks import FormKind, Wait, WaitKind
from nodkit.client import NodRpcError

# A shop may show its verdict a moment after its page settles: a hosted card
# frame's answer reaches the page by postMessage once the frame's document
# has run, on a loaded machine after the network went quiet. Before the
# outcome is called unknown the page is read again (a read only, never a
# press), OUTCOME_REREADS times, OUTCOME_REREAD_S apart.
OUTCOME_REREADS = 6
OUTCOME_REREAD_S = 0.5


async def request_payment(ctx: StepContext, args: Arguments) -> Outcome:
    card = next((c for c in ctx.context.cards if c.id == str(args["card_id"])), None)
    if card is None:
        return steps.not_run("there is no saved card with that id", code=Reason.NO_SUCH_ITEM)
    request = PaymentRequest(
        task_id=ctx.task.id,
        merchant_origin=str(args["merchant_origin"]),
        amount_minor=int(args["amount_minor"]),
        currency=str(args["currency"]),
        description=str(args["description"]),
        card_item_id=card.id,
        card_label=card.number,
        order_reference=str(args.get("order_reference", "")),
        request_id=ctx.operation_id,
        hosted_payment_origins=tuple(str(o) for o in args.get("hosted_payment_origins", [])),
    )
    try:
        payment = await ctx.peers.payments.create(ctx.owner, request)
    except NodRpcError as error:
        if error.may_have_happened:
            return steps.uncertain(f"the payment request's answer was lost ({error.code.name})")
        return steps.failed(
            f"the payment was not requested: {error.message}",
            code=error.reason or Reason.STEP_FAILED,
        )
    wait = Wait(WaitKind.PAYMENT, payment.id, prompt=payment.prompt, step=ctx.step.number)
    return WaitFor(wait, payment_id=payment.id)


def bank_confirmation(ctx: StepContext, payment: Payment) -> Wait:
    prompt = (
        f"{payment.prompt}. Your bank asks you to confirm this payment (3-D Secure), in its"
        " app or on the page it shows. nod waits for the shop to show the outcome."
    )
    return Wait(WaitKind.BANK_CONFIRMATION, payment.id, prompt=prompt, step=ctx.step.number)


async def pay(ctx: StepContext, args: Arguments) -> Outcome:
    payment_id = str(args["payment_id"])
    companion = ""
    if form_id := str(args.get("security_code_form_id", "")):
        form = ctx.task.forms.get(form_id)
        if form is None or form.kind != FormKind.SECURITY_CODE:
            return steps.not_run("no filled security-code form has that id")
        companion = form.item_id
    payments = ctx.peers.payments
    try:
        payment = await payments.get(ctx.owner, payment_id)
        if payment.task_id != ctx.task.id:
            return steps.not_run("that payment belongs to another task")
        if refused := elsewhere(ctx, payment):
            return refused
        operation_id = await payments.start_card_entry(ctx.owner, payment_id)
    except NodRpcError as error:
        if error.reason == "CLAIMS_UNAVAILABLE" and error.code.name == "UNAVAILABLE":
            # The payments service answered: the card entry could not be
            # bound, so it did not start (the payment is still said yes to).
            return steps.failed(f"the card entry did not start: {error.message}", code=error.reason)
        if error.may_have_happened:
            return steps.uncertain(f"the card entry may have started ({error.code.name})")
        return steps.failed(
            f"the card entry did not start: {error.message}",
            code=error.reason or Reason.STEP_FAILED,
            payment_id=payment_id,
        )
    entry = Entry(
        EntryKind.CARD,
        payment.card_item_id,
        dict(args["fields"]),
        str(args["submit"]),
        operation_id,
        companion_entry_id=companion,
    )
    return await _record(ctx, payment, await enter(ctx, entry))


def elsewhere(ctx: StepContext, payment: Payment) -> StepEnd | None:
    """Not run when the last page read is plainly not where the person said
    yes to entering the card (G13), before the card entry starts (which is
    once per payment); the claims service holds the binding either way."""
    page = last_page(ctx)
    origin = origin_of(page.url) if page is not None else ""
    if not origin or payment.takes_card_on(origin):
        return None
    return steps.not_run(
        f"this page belongs to {origin}, not the shop the person said yes to"
        f" ({payment.merchant_origin}); nothing was typed and the card entry did not start"
    )


async def _record(ctx: StepContext, payment: Payment, made: EntryMade | StepEnd) -> Outcome:
    """The card entry's end, then the outcome read from the page, on the
    payment; or, when the shop shows its review page first, the order it
    awaits (the payment stays RUNNING, nothing recorded, until
    confirm_payment); or, when the bank asks the person to confirm it, a
    wait for the shop to show the outcome (nothing is pressed again)."""
    payment_id = payment.id
    payments = ctx.peers.payments
    try:
        if not isinstance(made, EntryMade):
            # Started, so never back to confirmed: it may have reached the merchant.
            await payments.record_uncertain(ctx.owner, payment_id, made.claim_id, made.reason)
            if made.state == StepState.NOT_RUN:
                # Refused for where the card would go: nothing was claimed or typed.
                return steps.not_run(made.reason, payment_id=payment_id)
            return steps.uncertain(made.reason, claim_id=made.claim_id)
    except NodRpcError as error:
        return steps.uncertain(f"the payment's end was not recorded ({error.code.name})")
    if awaits_order(made.page):
        review = AwaitsOrder(payment_id, made.claim.id, made.page)
        return steps.done(review, claim_id=made.claim.id)
    return await record_outcome(ctx, payment, made.claim.id, made.page)


async def record_outcome(ctx: StepContext, payment: Payment, claim_id: str, page: Page) -> Outcome:
    """The card submitted (pay pressed, or the order placed) and the outcome
    the page shows, on the payment."""
    payments = ctx.peers.payments
    try:
        await payments.record_submitted(ctx.owner, payment.id, claim_id)
        page, outcome = await outcome_shown(ctx, page)
        if outcome == PaymentOutcome.UNKNOWN and asks_bank_confirmation(page):
            return WaitFor(bank_confirmation(ctx, payment), payment_id=payment.id)
        await payments.record_outcome(ctx.owner, payment.id, outcome)
    except NodRpcError as error:
        return steps.uncertain(f"the payment's end was not recorded ({error.code.name})")
    return steps.done(Paid(payment.id, outcome, page), claim_id=claim_id)


async def outcome_shown(ctx: StepContext, page: Page) -> tuple[Page, PaymentOutcome]:
    """The outcome the page shows, read again a few times while it shows
    none (and no bank asks the person): the page it was read from with it."""
    outcome = payment_outcome(page)
    for _ in range(OUTCOME_REREADS):
        if outcome != PaymentOutcome.UNKNOWN or asks_bank_confirmation(page):
            break
        await asyncio.sleep(OUTCOME_REREAD_S)
        again = await page_after(ctx)
        if again.readable:
            page, outcome = again, payment_outcome(again)
    return page, outcome
