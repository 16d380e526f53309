"""The payment's states: which are final, which the person said yes to (and
so count against the daily limit), which mean the card entry started."""

import pytest

from nod_payments.domain.payments import (
    FINAL_STATES,
    STARTED_STATES,
    YES_GIVEN_STATES,
    PaymentState,
    card_operation_id,
)

from .records import payment

S = PaymentState


@pytest.mark.parametrize(
    ("state", "final"),
    [
        (S.AWAITING_CONFIRMATION, False),
        (S.CONFIRMED, False),
        (S.RUNNING, False),
        (S.SUBMITTED, True),
        (S.UNCERTAIN, True),
        (S.REFUSED, True),
        (S.CANCELLED, True),
        (S.EXPIRED, True),
    ],
)
def test_a_payment_is_final_once_nothing_more_can_happen_to_it(state, final):
    assert payment(state).is_final is final
    assert (state in FINAL_STATES) is final


def test_the_card_operation_id_is_the_same_however_often_it_is_asked_for():
    assert card_operation_id("payment-1") == card_operation_id("payment-1")
    assert card_operation_id("payment-1") != card_operation_id("payment-2")


def test_only_payments_the_person_said_yes_to_count_against_the_daily_limit():
    assert YES_GIVEN_STATES == {S.CONFIRMED, S.RUNNING, S.SUBMITTED, S.UNCERTAIN}
    # A payment that was never paid, or not yet said yes to, spends nothing.
    assert not YES_GIVEN_STATES & {S.AWAITING_CONFIRMATION, S.REFUSED, S.CANCELLED, S.EXPIRED}


def test_a_started_card_entry_is_one_the_person_said_yes_to_and_ends_final():
    assert STARTED_STATES == {S.RUNNING, S.SUBMITTED, S.UNCERTAIN}
    assert STARTED_STATES <= YES_GIVEN_STATES
    assert STARTED_STATES - FINAL_STATES == {S.RUNNING}
