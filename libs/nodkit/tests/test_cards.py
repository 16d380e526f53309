"""What counts as a card number in free text (nodkit.cards): every way a card
number may be written is found and masked, and the ids and numbers that
ordinary text is full of are not."""

import hashlib
import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nodkit.cards import NUMBER_MASK, card_numbers_in, contains_card_number, mask_card_numbers
from nodtest.card_shapes import AMEX, CARD, SEEN_STORED, card_in_text


@settings(max_examples=500, deadline=None)
@given(card_in_text())
def test_a_card_number_in_any_shape_and_place_is_found_and_masked(example):
    _number, shown, text = example

    masked = mask_card_numbers(text)

    assert contains_card_number(text), text
    assert shown not in masked and NUMBER_MASK in masked, (text, masked)
    assert not contains_card_number(masked), masked


@settings(max_examples=200, deadline=None)
@given(st.lists(card_in_text(), min_size=2, max_size=4), st.sampled_from(("; ", " and ", "\n")))
def test_every_card_number_in_a_text_is_masked(examples, between):
    text = between.join(example[2] for example in examples)

    masked = mask_card_numbers(text)

    assert all(shown not in masked for _, shown, _ in examples), (text, masked)


@pytest.mark.parametrize(
    "text",
    [
        *SEEN_STORED,
        "4242 - 4242 - 4242 - 4242",
        f"paid with {AMEX}.",
        "order 12-4242 4242 4242 4242 shipped",
        "4 2 4 2 4 2 4 2 4 2 4 2 4 2 4 2",
    ],
)
def test_the_shapes_seen_stored_verbatim_are_card_numbers(text):
    assert contains_card_number(text) and NUMBER_MASK in mask_card_numbers(text)


@pytest.mark.parametrize(
    "text",
    [
        "42424242424242421",  # a longer number, not the card in it
        "4242424242424241",  # fails the check
        "4242 4242 4242",  # too short
        "10.99 12.50 18.75 13.20 9.99",  # prices: joined two ways
        "192.168.100.200 and 10.0.0.1",
        "2024-01-15 12:30, 2024-01-16 08:00",
        "+44 20 7946 0958",
        "4242\n4242\n4242\n4242",  # a line break ends a number
        "12345678-1234-1234-1234-123456789012",
        "21fcbb73423423423423fe789d491f2",
    ],
)
def test_ordinary_numbers_are_not_card_numbers(text):
    assert not contains_card_number(text), card_numbers_in(text)
    assert mask_card_numbers(text) == text


@settings(max_examples=500, deadline=None)
@given(st.uuids(), st.integers(0, 10_000))
def test_ids_made_of_uuids_and_digests_are_never_card_numbers(made, step):
    digest = hashlib.sha256(made.bytes).hexdigest()
    for text in (
        str(made),
        made.hex,
        f"task:{made}:step:{step}",
        f"rq_{made.hex}",
        digest,
        digest[:24],
        str(uuid.UUID(bytes=made.bytes[::-1])).upper(),
    ):
        assert not contains_card_number(text), text


def test_masking_keeps_the_text_around_a_number():
    assert mask_card_numbers(f"ref {CARD}-1, thanks") == f"ref {NUMBER_MASK}-1, thanks"
    assert mask_card_numbers("a 4242-4242-4242-4242 b 3782 822463 10005 c") == (
        f"a {NUMBER_MASK} b {NUMBER_MASK} c"
    )
