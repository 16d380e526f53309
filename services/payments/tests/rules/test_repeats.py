"""A second payment for the same order is refused (G8), saying whether the
first may already have reached the merchant; the one way past is a repeat
the person asked for, naming a finished payment for the very same order."""

import pytest

from nod_payments.domain.payments import PaymentState
from nod_payments.domain.repeats import check_repeat, duplicate_order
from nodkit.errors import FailedPrecondition, NotFound

from .records import payment, request

S = PaymentState
EARLIER = payment(S.SUBMITTED, order_reference="A-1001")


# --- the second payment the unique index refused -------------------------------


def test_an_order_whose_payment_may_have_reached_the_merchant_says_check_first():
    for again in (request(), request(repeat_of_payment_id="b5d1c3a0-0000-4000-8000-000000000001")):
        error = duplicate_order(payment(S.UNCERTAIN), again)
        assert error.reason == "PAYMENT_UNCERTAIN"
        assert error.metadata == {"payment_id": payment().id, "state": "uncertain"}


@pytest.mark.parametrize("state", [S.AWAITING_CONFIRMATION, S.CONFIRMED, S.RUNNING, S.SUBMITTED])
def test_an_order_with_a_payment_is_not_paid_twice(state):
    error = duplicate_order(payment(state), request())
    assert error.reason == "DUPLICATE_ORDER"
    assert "not paid twice" in error.message
    assert error.metadata == {"payment_id": payment().id, "state": state.value}


def test_a_second_repeat_of_the_same_payment_is_refused_as_a_duplicate():
    error = duplicate_order(payment(S.SUBMITTED), request(repeat_of_payment_id=EARLIER.id))
    assert error.reason == "DUPLICATE_ORDER"
    assert "already paid again once" in error.message


def test_a_holder_that_ended_meanwhile_is_still_a_duplicate_naming_no_payment():
    error = duplicate_order(None, request())
    assert error.reason == "DUPLICATE_ORDER" and error.metadata == {}


# --- the repeat the person asked for -------------------------------------------


@pytest.mark.parametrize("state", [S.SUBMITTED, S.UNCERTAIN])
def test_a_finished_payment_for_the_same_order_may_be_repeated(state):
    earlier = payment(state, order_reference="A-1001")
    assert check_repeat(earlier, request()) is earlier  # same contents
    # Same order number, however written, at another amount.
    assert check_repeat(earlier, request(order_reference="a1001", amount_minor=1)) is earlier


def test_a_repeat_of_no_payment_is_not_found():
    with pytest.raises(NotFound) as refused:
        check_repeat(None, request())
    assert refused.value.reason == "PAYMENT_NOT_FOUND"


@pytest.mark.parametrize("state", [S.REFUSED, S.CANCELLED, S.EXPIRED])
def test_a_payment_never_made_needs_no_repeat(state):
    with pytest.raises(FailedPrecondition) as refused:
        check_repeat(payment(state), request())
    assert refused.value.reason == "REPEAT_NOT_NEEDED"
    assert refused.value.metadata["state"] == state.value


@pytest.mark.parametrize("state", [S.AWAITING_CONFIRMATION, S.CONFIRMED, S.RUNNING])
def test_a_payment_still_under_way_is_not_repeated(state):
    with pytest.raises(FailedPrecondition) as refused:
        check_repeat(payment(state), request())
    assert refused.value.reason == "REPEAT_OF_NOT_FINAL"


@pytest.mark.parametrize(
    "other",
    [
        request(amount_minor=1),
        request(order_reference="A-1002", amount_minor=1),
        request(task_id="task-2"),
        request(merchant_origin="https://other.example", order_reference="A-1001"),
    ],
)
def test_a_repeat_cant_be_used_to_slip_a_different_order_past_the_index(other):
    with pytest.raises(FailedPrecondition) as refused:
        check_repeat(EARLIER, other)
    assert refused.value.reason == "REPEAT_OF_OTHER_ORDER"
    assert refused.value.metadata["payment_id"] == EARLIER.id
