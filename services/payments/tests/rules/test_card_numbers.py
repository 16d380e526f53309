"""G8 in payments' own words: a card number is refused in any text this
service stores, and masked in any text it keeps whatever it says; an
unbroken run of 13 or more digits counts as one, Luhn-valid or not."""

import pytest

from nod_payments.domain.card_numbers import MASK, mask_card_numbers, refuse_card_numbers
from nodkit.errors import InvalidArgument


@pytest.mark.parametrize(
    "value",
    [
        "4242424242424242",  # a test card, unbroken
        "card 4242 4242 4242 4242 exp 12/30",  # grouped, in words
        "4242-4242-4242-4242",
        "1234567890123",  # 13 digits, not Luhn-valid: still looks like one to a scan
        "order 20250102123456789",  # an order number that looks like one
    ],
)
def test_a_card_number_or_a_long_digit_run_is_refused_naming_the_field(value):
    with pytest.raises(InvalidArgument) as refused:
        refuse_card_numbers("order_reference", value)
    assert refused.value.field == "order_reference"
    assert "card number" in refused.value.description


@pytest.mark.parametrize(
    "value",
    [
        "A-1001",
        "123456789012",  # 12 digits: too short to be a card
        "1234 5678 9012 3456",  # grouped and not Luhn-valid: no card number
        "10.99 12.50 8.75 3.20",  # a list of prices
        "",
    ],
)
def test_text_without_a_card_number_is_returned_as_it_is(value):
    assert refuse_card_numbers("description", value) == value


def test_a_card_number_is_masked_wherever_it_stands_and_the_rest_is_kept():
    assert mask_card_numbers("paid with 4242 4242 4242 4242, thanks") == f"paid with {MASK}, thanks"
    assert mask_card_numbers("ref1234567890123x") == f"ref{MASK}x"


def test_masking_leaves_short_numbers_and_plain_text_alone():
    text = "order A-1001 of 3 items, £12.00, call 0123 456 789"
    assert mask_card_numbers(text) == text


def test_masked_text_holds_no_run_a_scan_would_find():
    masked = mask_card_numbers("a 4242424242424242 b 9999999999999 c 4000-0566-5566-5556")
    assert masked == f"a {MASK} b {MASK} c {MASK}"
    refuse_card_numbers("reason", masked)  # what was masked passes the refusal
