"""What a transition that matched no row means (plain Python).

The store makes each transition as one conditional update (store/
transitions.py); when it moves nothing, the use case reads the payment as it
is now and asks here what that means. A repeat of the transition just made
(a resent yes, a resent RecordSubmitted) answers the current payment;
anything else is FAILED_PRECONDITION with a reason naming where it stands.
"""

from nod_payments.domain.payments import (
    STARTED_STATES,
    YES_GIVEN_STATES,
    Decision,
    PaymentOutcome,
    PaymentRecord,
    PaymentState,
)
from nodkit.errors import FailedPrecondition, NotFound

S = PaymentState
WHERE_IT_STANDS = {
    S.AWAITING_CONFIRMATION: ("NOT_CONFIRMED", "the payment is still waiting for the person's yes"),
    S.CONFIRMED: ("NOT_STARTED", "the card entry for this payment has not started"),
    S.RUNNING: ("ALREADY_STARTED", "the card entry for this payment has already started"),
    S.SUBMITTED: ("ALREADY_SUBMITTED", "the payment was already submitted to the merchant"),
    S.UNCERTAIN: (
        "ALREADY_UNCERTAIN",
        "the payment may have reached the merchant: check your bank or the merchant first",
    ),
    S.REFUSED: ("ALREADY_REFUSED", "the person said no to this payment"),
    S.CANCELLED: ("CANCELLED", "the payment was cancelled"),
    S.EXPIRED: ("EXPIRED", "the payment expired before the person said yes"),
}


def existing(record: PaymentRecord | None) -> PaymentRecord:
    """The person's payment; someone else's looks the same as none (NOT_FOUND)."""
    if record is None:
        raise NotFound("no such payment", reason="PAYMENT_NOT_FOUND")
    return record


def refusal(record: PaymentRecord, reason: str | None = None) -> FailedPrecondition:
    default_reason, message = WHERE_IT_STANDS[record.state]
    return FailedPrecondition(
        message, reason=reason or default_reason, payment_id=record.id, state=record.state.value
    )


def explain_refused_decision(record: PaymentRecord, decision: Decision) -> PaymentRecord:
    if decision == Decision.YES and record.state in YES_GIVEN_STATES:
        return record
    if decision == Decision.NO and record.state == S.REFUSED:
        return record
    if decision == Decision.NO and record.state in YES_GIVEN_STATES:
        raise refusal(record, "ALREADY_CONFIRMED")
    raise refusal(record)


def explain_refused_start(record: PaymentRecord) -> PaymentRecord:
    """Never answers: a second start must not look like a first one."""
    raise refusal(record, "ALREADY_STARTED" if record.state in STARTED_STATES else None)


def explain_refused_finish(
    record: PaymentRecord, target: PaymentState, claim_id: str | None
) -> PaymentRecord:
    if record.state == target and (claim_id is None or record.claim_id in (None, claim_id)):
        return record
    if record.state == target:
        raise refusal(record, "CLAIM_MISMATCH")
    raise refusal(record)


def explain_refused_outcome(record: PaymentRecord, outcome: PaymentOutcome) -> PaymentRecord:
    if record.state != S.SUBMITTED:
        raise refusal(record, "NOT_SUBMITTED")
    if record.outcome == outcome:
        return record
    raise FailedPrecondition(
        "a different outcome was already recorded for this payment",
        reason="OUTCOME_ALREADY_RECORDED",
        payment_id=record.id,
        outcome=record.outcome.value if record.outcome else "",
    )
