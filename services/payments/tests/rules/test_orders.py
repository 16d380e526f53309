"""What makes two payments the same order (G8): within a task, the same
merchant, amount and currency whatever the words; or the same order
reference, compared without case, spaces or punctuation, whatever the
amount. Each rule is a key; a repeat the person asked for carries a marker
naming the payment it repeats, in the keys it shares with it."""

import re

import pytest

from nod_payments.domain.orders import (
    normalised_reference,
    order_keys,
    same_contents,
    same_order,
    same_reference,
)
from nod_payments.domain.payments import PaymentState

from .records import payment, request

ORDER = request(order_reference="A-1001")


@pytest.mark.parametrize("written", ["A-1001", "a 1001", "#A1001", " a-1001 ", "A.10.01"])
def test_an_order_number_is_compared_without_case_spaces_or_punctuation(written):
    assert normalised_reference(written) == normalised_reference("A-1001")
    assert same_reference(ORDER, request(order_reference=written, amount_minor=1))


def test_a_missing_or_punctuation_only_reference_is_no_reference():
    assert normalised_reference(None) == normalised_reference("#-- ") == ""
    assert not same_reference(request(), request())
    assert not same_reference(request(order_reference="#"), request(order_reference="-"))
    assert order_keys(request(order_reference=" # ")).reference is None


def test_the_same_contents_are_the_same_order_whatever_the_words_say():
    other_words = request(description="teapot, blue", order_reference="B-2")
    assert same_contents(ORDER, other_words) and same_order(ORDER, other_words)
    assert order_keys(ORDER).contents == order_keys(other_words).contents
    assert order_keys(ORDER).reference != order_keys(other_words).reference


def test_the_same_reference_is_the_same_order_whatever_the_amount():
    cheaper = request(order_reference="a1001", amount_minor=100, currency="GBP")
    assert not same_contents(ORDER, cheaper)
    assert same_order(ORDER, cheaper)
    assert order_keys(ORDER).reference == order_keys(cheaper).reference


@pytest.mark.parametrize(
    "change",
    [
        {"task_id": "task-2"},
        {"merchant_origin": "https://other.example"},
        {"amount_minor": 2600},
        {"currency": "GBP"},
    ],
)
def test_another_task_merchant_amount_or_currency_is_another_order(change):
    other = request(**change)
    assert not same_order(request(), other)
    assert order_keys(request()).contents != order_keys(other).contents


def test_the_same_reference_in_another_task_or_shop_is_another_order():
    assert not same_order(ORDER, request(order_reference="A-1001", task_id="t2", amount_minor=1))
    elsewhere = request(order_reference="A-1001", merchant_origin="https://b.example")
    assert not same_order(ORDER, elsewhere)


def test_the_keys_are_the_same_for_the_same_order_and_kinds_never_collide():
    assert order_keys(ORDER) == order_keys(request(order_reference="a-1001"))
    keys = order_keys(ORDER)
    assert keys.reference is not None and keys.contents != keys.reference


def test_a_key_holds_no_digit_run_that_looks_like_a_card_number():
    for amount in range(1, 100):
        keys = order_keys(request(amount_minor=amount, order_reference=f"R{amount}"))
        for key in (keys.contents, keys.reference):
            assert key is not None and not re.search(r"\d{13}", key)
            assert re.fullmatch(r"[A-Za-z0-9_-]{43}=", key)


def test_a_repeat_is_marked_in_the_keys_it_shares_with_the_payment_it_repeats():
    earlier = payment(PaymentState.UNCERTAIN, order_reference="A-1001")
    again = request(order_reference="A-1001", repeat_of_payment_id=earlier.id)
    plain, marked = order_keys(again), order_keys(again, earlier)
    assert marked.contents != plain.contents and marked.reference != plain.reference


def test_a_repeat_marks_only_the_key_it_shares():
    # Same contents, another reference: only the contents key carries the marker.
    earlier = payment(PaymentState.SUBMITTED, order_reference="A-1001")
    again = request(order_reference="A-1002")
    assert order_keys(again, earlier).contents != order_keys(again).contents
    assert order_keys(again, earlier).reference == order_keys(again).reference
    # Same reference, another amount: only the reference key does.
    dearer = request(order_reference="A-1001", amount_minor=9999)
    assert order_keys(dearer, earlier).contents == order_keys(dearer).contents
    assert order_keys(dearer, earlier).reference != order_keys(dearer).reference


def test_each_earlier_payment_is_repeated_under_a_key_of_its_own():
    first = payment(PaymentState.UNCERTAIN, id="a0e1f5c2-7d7b-4d8e-8f43-000000000001")
    second = payment(PaymentState.UNCERTAIN, id="a0e1f5c2-7d7b-4d8e-8f43-000000000002")
    assert order_keys(request(), first).contents != order_keys(request(), second).contents
    assert order_keys(request(), first) == order_keys(request(), first)
