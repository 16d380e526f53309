"""confirm_payment (G8): on a checkout whose card step is followed by a
review page, pay entered the card and the shop holds it for the order it
shows; this presses the page's place-order control, once per payment
(domain/orders.py), then reads the page, once it has settled, for the
outcome, recorded on the payment as pay records it. A press whose answer
was lost, or one cut off (Stop, a crash; app/endings.py), leaves the
payment UNCERTAIN: it may have charged the card, and it is never pressed
again."""

from nod_tasks.app.tools.base import Arguments, Outcome, StepContext
from nod_tasks.app.tools.browsing import NEW_SESSION, SessionReplaced, in_session
from nod_tasks.app.tools.entering import page_after
from nod_tasks.app.tools.paying import record_outcome
from nod_tasks.domain import orders, steps
from nod_tasks.domain.outside import PaymentState
from nodkit.client import NodRpcError


async def confirm_payment(ctx: StepContext, args: Arguments) -> Outcome:
    payment_id, target = str(args["payment_id"]), str(args["target"])
    refusal = orders.confirm_refusal(payment_id, ctx.earlier)
    review = orders.awaiting_order(payment_id, ctx.earlier)
    if refusal is not None or review is None:
        return steps.not_run(refusal or "this payment awaits no order")
    owner, payments, browser = ctx.owner, ctx.peers.payments, ctx.peers.browser
    try:
        payment = await payments.get(owner, payment_id)
    except NodRpcError as error:
        return steps.not_run(
            f"nothing was pressed: the payment could not be read ({error.message})"
        )
    if payment.task_id != ctx.task.id:
        return steps.not_run("that payment belongs to another task")
    if payment.state != PaymentState.RUNNING:
        # Settled meanwhile (its card entry ran too long, the payments service restarted).
        return steps.not_run(
            f"nothing was pressed: the payment is {payment.state.value},"
            " no longer awaiting its order"
        )
    try:
        await in_session(ctx, lambda s: browser.click(owner, s, target))
    except SessionReplaced:
        return steps.not_run(f"{NEW_SESSION}: nothing was pressed; the review page is gone")
    except NodRpcError as error:
        if not error.may_have_happened:
            return steps.not_run(f"nothing was pressed: {error.message}")
        why = f"placing the order did not finish ({error.code.name})"
        try:
            await payments.record_uncertain(owner, payment_id, review.claim_id, why)
        except NodRpcError:
            pass  # still RUNNING: the task's end settles it (app/endings.py)
        return steps.uncertain(why, claim_id=review.claim_id)
    return await record_outcome(ctx, payment, review.claim_id, await page_after(ctx))
