"""Refusing a second payment for the same order, and the one explicit way
past that refusal: a repeat the person asked for after checking (G5, G8)."""

from nod_payments.domain.orders import same_order
from nod_payments.domain.payments import PaymentRecord, PaymentState
from nod_payments.domain.requests import PaymentRequest
from nodkit.errors import FailedPrecondition, NotFound

REPEATABLE_STATES = frozenset({PaymentState.SUBMITTED, PaymentState.UNCERTAIN})
NEVER_PAID_STATES = frozenset({PaymentState.REFUSED, PaymentState.CANCELLED, PaymentState.EXPIRED})


def duplicate_order(existing: PaymentRecord | None, request: PaymentRequest) -> FailedPrecondition:
    """The unique index refused the insert; `existing` is the live payment
    holding the order (None if it ended in the meantime)."""
    about = {"payment_id": existing.id, "state": existing.state.value} if existing else {}
    if existing is not None and existing.state == PaymentState.UNCERTAIN:
        return FailedPrecondition(
            "an earlier payment for this order may have reached the merchant: check your bank"
            " or the merchant first; to pay again, the person must ask for a repeat of it",
            reason="PAYMENT_UNCERTAIN",
            **about,
        )
    if request.repeat_of_payment_id:
        message = "that payment was already paid again once; a new attempt repeats the newest one"
    else:
        message = "this order already has a payment; it is not paid twice"
    return FailedPrecondition(message, reason="DUPLICATE_ORDER", **about)


def check_repeat(earlier: PaymentRecord | None, request: PaymentRequest) -> PaymentRecord:
    """A repeat names a finished payment for the very same order, so its
    marker can't be used to slip a different order past the index."""
    if earlier is None:
        raise NotFound("repeat_of_payment_id names no payment", reason="PAYMENT_NOT_FOUND")
    about = {"payment_id": earlier.id, "state": earlier.state.value}
    if earlier.state in NEVER_PAID_STATES:
        raise FailedPrecondition(
            "that payment was never made, so it needs no repeat: create the payment without"
            " repeat_of_payment_id",
            reason="REPEAT_NOT_NEEDED",
            **about,
        )
    if earlier.state not in REPEATABLE_STATES:
        raise FailedPrecondition(
            "that payment is still under way; only a submitted or uncertain payment is repeated",
            reason="REPEAT_OF_NOT_FINAL",
            **about,
        )
    if not same_order(request, earlier):
        raise FailedPrecondition(
            "repeat_of_payment_id names a payment for a different order",
            reason="REPEAT_OF_OTHER_ORDER",
            **about,
        )
    return earlier
