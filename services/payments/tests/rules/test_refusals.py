"""What a transition that moved nothing means: the same transition again (a
resent yes, a resent RecordSubmitted) is answered with the payment as it
is; anything else is FAILED_PRECONDITION with a reason saying where the
payment stands, and a second start never looks like a first."""

import pytest

from nod_payments.domain.payments import Decision, PaymentOutcome, PaymentState
from nod_payments.domain.refusals import (
    WHERE_IT_STANDS,
    existing,
    explain_refused_decision,
    explain_refused_finish,
    explain_refused_outcome,
    explain_refused_start,
    refusal,
)
from nodkit.errors import FailedPrecondition, NotFound

from .records import payment

S = PaymentState


def test_no_payment_is_not_found_and_a_payment_is_itself():
    with pytest.raises(NotFound) as refused:
        existing(None)
    assert refused.value.reason == "PAYMENT_NOT_FOUND"
    record = payment()
    assert existing(record) is record


def test_every_state_has_a_reason_of_its_own_and_says_which_payment():
    assert set(WHERE_IT_STANDS) == set(S)
    assert len({reason for reason, _ in WHERE_IT_STANDS.values()}) == len(S)
    error = refusal(payment(S.EXPIRED))
    assert error.reason == "EXPIRED"
    assert error.metadata == {"payment_id": payment().id, "state": "expired"}


# --- a yes or no that moved nothing --------------------------------------------


@pytest.mark.parametrize("state", [S.CONFIRMED, S.RUNNING, S.SUBMITTED, S.UNCERTAIN])
def test_a_resent_yes_after_the_yes_is_answered_with_the_payment(state):
    record = payment(state)
    assert explain_refused_decision(record, Decision.YES) is record


def test_a_resent_no_after_the_no_is_answered_with_the_payment():
    record = payment(S.REFUSED)
    assert explain_refused_decision(record, Decision.NO) is record


@pytest.mark.parametrize(
    ("state", "decision", "reason"),
    [
        (S.CONFIRMED, Decision.NO, "ALREADY_CONFIRMED"),
        (S.RUNNING, Decision.NO, "ALREADY_CONFIRMED"),
        (S.UNCERTAIN, Decision.NO, "ALREADY_CONFIRMED"),
        (S.REFUSED, Decision.YES, "ALREADY_REFUSED"),
        (S.EXPIRED, Decision.YES, "EXPIRED"),
        (S.EXPIRED, Decision.NO, "EXPIRED"),
        (S.CANCELLED, Decision.YES, "CANCELLED"),
    ],
)
def test_a_decision_the_other_way_or_too_late_is_refused_saying_why(state, decision, reason):
    with pytest.raises(FailedPrecondition) as refused:
        explain_refused_decision(payment(state), decision)
    assert refused.value.reason == reason
    assert refused.value.metadata["state"] == state.value


# --- a start that moved nothing ------------------------------------------------


@pytest.mark.parametrize(
    ("state", "reason"),
    [
        (S.RUNNING, "ALREADY_STARTED"),
        (S.SUBMITTED, "ALREADY_STARTED"),
        (S.UNCERTAIN, "ALREADY_STARTED"),
        (S.AWAITING_CONFIRMATION, "NOT_CONFIRMED"),
        (S.REFUSED, "ALREADY_REFUSED"),
        (S.CANCELLED, "CANCELLED"),
        (S.EXPIRED, "EXPIRED"),
    ],
)
def test_a_second_start_is_always_refused(state, reason):
    with pytest.raises(FailedPrecondition) as refused:
        explain_refused_start(payment(state))
    assert refused.value.reason == reason


# --- an end that moved nothing -------------------------------------------------


@pytest.mark.parametrize(
    ("state", "recorded_claim", "resent_claim"),
    [
        (S.SUBMITTED, "claim-1", "claim-1"),
        (S.SUBMITTED, "claim-1", None),  # a resend naming no claim
        (S.UNCERTAIN, None, "claim-1"),  # ended without a claim recorded
    ],
)
def test_a_resent_end_under_the_same_claim_is_answered_with_the_payment(
    state, recorded_claim, resent_claim
):
    record = payment(state, claim_id=recorded_claim)
    assert explain_refused_finish(record, state, resent_claim) is record


def test_the_same_end_under_another_claim_is_refused():
    with pytest.raises(FailedPrecondition) as refused:
        explain_refused_finish(payment(S.SUBMITTED, claim_id="claim-1"), S.SUBMITTED, "claim-2")
    assert refused.value.reason == "CLAIM_MISMATCH"


@pytest.mark.parametrize(
    ("state", "target", "reason"),
    [
        (S.UNCERTAIN, S.SUBMITTED, "ALREADY_UNCERTAIN"),
        (S.SUBMITTED, S.UNCERTAIN, "ALREADY_SUBMITTED"),
        (S.CONFIRMED, S.SUBMITTED, "NOT_STARTED"),
        (S.CANCELLED, S.UNCERTAIN, "CANCELLED"),
    ],
)
def test_an_end_other_than_the_one_recorded_is_refused_saying_where_it_stands(
    state, target, reason
):
    with pytest.raises(FailedPrecondition) as refused:
        explain_refused_finish(payment(state, claim_id="claim-1"), target, "claim-1")
    assert refused.value.reason == reason


# --- an outcome that moved nothing ---------------------------------------------


def test_the_same_outcome_again_is_answered_with_the_payment():
    record = payment(S.SUBMITTED, outcome=PaymentOutcome.PAID)
    assert explain_refused_outcome(record, PaymentOutcome.PAID) is record


def test_another_outcome_than_the_one_recorded_is_refused_naming_it():
    record = payment(S.SUBMITTED, outcome=PaymentOutcome.DECLINED)
    with pytest.raises(FailedPrecondition) as refused:
        explain_refused_outcome(record, PaymentOutcome.PAID)
    assert refused.value.reason == "OUTCOME_ALREADY_RECORDED"
    assert refused.value.metadata["outcome"] == "declined"


@pytest.mark.parametrize("state", [S.RUNNING, S.UNCERTAIN, S.CONFIRMED])
def test_only_a_submitted_payment_has_an_outcome(state):
    with pytest.raises(FailedPrecondition) as refused:
        explain_refused_outcome(payment(state), PaymentOutcome.PAID)
    assert refused.value.reason == "NOT_SUBMITTED"
