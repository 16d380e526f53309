"""A payment request: each bad field is refused naming it, before anything
is written; a good one is normalised; a resend with the same request id and
the same content gets the first answer, other content under it is refused."""

import dataclasses

import pytest

from nod_payments.domain.payments import PaymentState
from nod_payments.domain.requests import (
    MAX_CARD_LABEL,
    MAX_DESCRIPTION,
    MAX_HOSTED_PAYMENT_ORIGINS,
    MAX_ORDER_REFERENCE,
    answer_resend,
    card_label,
    check_payment_request,
    hosted_payment_origins,
)
from nodkit.errors import AlreadyExists, InvalidArgument

from .records import CARD_ITEM, SHOP, payment, request


def refused_field(**changes) -> str:
    with pytest.raises(InvalidArgument) as refused:
        check_payment_request(request(**changes))
    return refused.value.field


def test_a_good_request_is_normalised():
    checked = check_payment_request(
        request(
            merchant_origin="HTTPS://Shop.Example:443",
            description="  1 × blue teapot \n",
            card_item_id=CARD_ITEM.upper(),
            order_reference="  A-1001 ",
            repeat_of_payment_id="",
            hosted_payment_origins=("https://pay.example", "HTTPS://PAY.EXAMPLE", SHOP),
        )
    )
    assert checked == request(
        description="1 × blue teapot",
        order_reference="A-1001",
        repeat_of_payment_id=None,
        hosted_payment_origins=("https://pay.example",),
    )
    assert check_payment_request(request(order_reference="   ")).order_reference is None


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"amount_minor": 0}, "amount_minor"),
        ({"amount_minor": -1}, "amount_minor"),
        ({"merchant_origin": "shop.example"}, "merchant_origin"),
        ({"merchant_origin": "https://shop.example/checkout"}, "merchant_origin"),
        ({"currency": "eur"}, "currency"),
        ({"currency": "EURO"}, "currency"),
        ({"description": "x" * (MAX_DESCRIPTION + 1)}, "description"),
        ({"description": "card 4242 4242 4242 4242"}, "description"),
        ({"description": "ref 1234567890123"}, "description"),
        ({"order_reference": "x" * (MAX_ORDER_REFERENCE + 1)}, "order_reference"),
        ({"order_reference": "1234567890123"}, "order_reference"),
        ({"request_id": ""}, "request_id"),
        ({"request_id": " r-1"}, "request_id"),
        ({"task_id": "task\n1"}, "task_id"),
        ({"card_item_id": "card-1"}, "card_item_id"),
        ({"card_label": ""}, "card_label"),
        ({"card_label": "x" * (MAX_CARD_LABEL + 1)}, "card_label"),
        ({"repeat_of_payment_id": "payment-1"}, "repeat_of_payment_id"),
        ({"hosted_payment_origins": (SHOP, "ftp://pay.example")}, "hosted_payment_origins[1]"),
    ],
)
def test_a_bad_field_is_refused_naming_it(changes, field):
    assert refused_field(**changes) == field


def test_a_description_and_order_reference_at_their_bounds_go_ahead():
    checked = check_payment_request(
        request(description="x" * MAX_DESCRIPTION, order_reference="r" * MAX_ORDER_REFERENCE)
    )
    assert len(checked.description) == MAX_DESCRIPTION
    assert checked.order_reference == "r" * MAX_ORDER_REFERENCE


def test_a_request_id_made_of_hex_is_not_taken_for_a_card_number():
    # A uuid4().hex can hold 13 digits in a row; ids are checked by the shared rule alone.
    request_id = "1234567890123" + "abcdef0123456789abc"
    assert check_payment_request(request(request_id=request_id)).request_id == request_id


@pytest.mark.parametrize("label", ["•••• 4242", "Visa ending 4242", "work card"])
def test_a_masked_card_label_goes_ahead(label):
    assert card_label(label) == label


@pytest.mark.parametrize("label", ["4242 42", "42424", "1-2-3-4-5"])
def test_a_card_label_with_more_than_four_digits_is_refused(label):
    with pytest.raises(InvalidArgument) as refused:
        card_label(label)
    assert refused.value.field == "card_label"


def test_hosted_payment_origins_are_a_sorted_set_without_the_merchant():
    given = ("https://z.example", "https://a.example", "https://Z.example", SHOP)
    assert hosted_payment_origins(SHOP, given) == ("https://a.example", "https://z.example")
    assert hosted_payment_origins(SHOP, ()) == ()


def test_at_most_so_many_hosted_payment_origins_are_listed():
    origins = tuple(f"https://pay{n}.example" for n in range(MAX_HOSTED_PAYMENT_ORIGINS + 1))
    assert len(hosted_payment_origins(SHOP, origins[:-1])) == MAX_HOSTED_PAYMENT_ORIGINS
    with pytest.raises(InvalidArgument) as refused:
        hosted_payment_origins(SHOP, origins)
    assert refused.value.field == "hosted_payment_origins"


# --- a resend ------------------------------------------------------------------


def test_a_resend_with_the_same_content_gets_the_first_answer_whatever_became_of_it():
    first = payment()
    assert answer_resend(first, check_payment_request(request())) is first
    # Normalised first: a resend written differently is the same request.
    again = check_payment_request(
        request(merchant_origin=SHOP + ":443", description=" 1 × blue teapot")
    )
    assert answer_resend(first, again) is first
    cancelled = dataclasses.replace(first, state=PaymentState.CANCELLED)
    assert answer_resend(cancelled, request()) is cancelled


@pytest.mark.parametrize(
    "changes",
    [
        {"amount_minor": 2600},
        {"description": "2 × blue teapot"},
        {"order_reference": "A-1001"},
        {"hosted_payment_origins": ("https://pay.example",)},
        {"repeat_of_payment_id": "b5d1c3a0-0000-4000-8000-000000000001"},
    ],
)
def test_a_request_id_reused_for_other_content_is_refused(changes):
    first = payment()
    with pytest.raises(AlreadyExists) as refused:
        answer_resend(first, request(**changes))
    assert refused.value.reason == "REQUEST_ID_REUSED"
    assert refused.value.metadata == {"payment_id": first.id}
