"""The masking rules alone (no browser): every form of an entered value is
found, a value is never cut in two by a clip, and nothing else is touched."""

import html
import re
from urllib.parse import quote, quote_plus

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from nod_browser.adapters.page_reader import CLIP, finish
from nod_browser.domain.shown_back import MASK, EnteredValues

from .echoes import CARD_ECHOES, TEXT_ECHOES

PASSWORD = 'pw <&> "q"  y+z!'


def entered(*values: str) -> EnteredValues:
    remembered = EnteredValues()
    for value in values:
        remembered.remember(value)
    return remembered


def test_each_form_of_a_value_is_masked():
    forms = [
        PASSWORD,
        PASSWORD.upper(),
        quote(PASSWORD, safe=""),
        quote(PASSWORD, safe="").lower(),
        quote_plus(PASSWORD),
        html.escape(PASSWORD),
        "".join(f"&#x{ord(c):X};" for c in PASSWORD),
        " ".join(PASSWORD.split()),
    ]

    masked = [entered(PASSWORD).mask(f"got {form}.") for form in forms]

    assert masked == [f"got {MASK}."] * len(forms)


def test_digits_are_masked_only_as_a_whole_number():
    assert entered("737").mask("cvc=737&order=17370") == f"cvc={MASK}&order=17370"


def test_a_value_that_begins_another_does_not_unmask_its_end():
    assert entered("secret", "secretpass").mask("secretpass") == MASK


def test_a_value_at_a_clip_edge_is_masked_before_the_string_is_cut():
    values = entered(PASSWORD)
    notice = "x" * (CLIP["notice"] - 5) + quote_plus(PASSWORD)
    raw = {
        "url": "http://shop.example/",
        "title": "",
        "text": notice,
        "textTruncated": False,
        "forms": [],
        "fields": [],
        "controls": [],
        "notices": [{"kind": "error", "text": notice}],
    }

    page = finish(raw, values.mask, max_text=CLIP["notice"])

    shown = "x" * (CLIP["notice"] - 5) + MASK[:5]
    assert page["notices"][0]["text"] == shown and page["text"] == shown
    assert page["textTruncated"]


def test_nothing_is_masked_before_anything_was_entered():
    values = EnteredValues()
    assert values.mask("pw=1234") == "pw=1234" and values.reach == 0
    assert "1234" not in repr(entered("1234"))


# --- the forms a site may dress a value up in (echoes.py) ---

OTP = "482913"
CARD = "4000056655665556"
LONG = "correct-Horse!battery 9"
# Ordinary text around an echo: nothing in it may be masked.
AROUND = ("Sorry, we got: ", " (order 114-1234567-1234567, 2 x 10.99 EUR).")


@pytest.mark.parametrize("echo", sorted(TEXT_ECHOES))
@pytest.mark.parametrize("value", [PASSWORD, LONG, OTP, "Zürich-Köln!"])
def test_each_dressed_up_form_of_a_value_is_masked(value, echo):
    shown = TEXT_ECHOES[echo](value)

    masked = entered(value).mask(AROUND[0] + shown + AROUND[1])

    assert shown not in masked and MASK in masked, masked
    assert masked.startswith(AROUND[0]) and masked.endswith(AROUND[1]), masked


@pytest.mark.parametrize("echo", sorted(CARD_ECHOES))
def test_any_six_digits_in_a_row_of_an_entered_card_number_are_masked(echo):
    shown = CARD_ECHOES[echo](CARD)

    masked = entered(CARD).mask(f"Card {shown}.")

    # Only the digits around it may show ("order 9[redacted]7").
    assert MASK in masked and shown not in masked, masked
    assert len(re.sub(r"[^0-9]", "", masked)) <= 2, masked


def test_fewer_than_six_digits_of_a_card_number_are_not_masked():
    # "Visa •••• 5556" names the card; masking it would tell nothing new.
    assert entered(CARD).mask("Visa •••• 5556, 65566") == "Visa •••• 5556, 65566"


@pytest.mark.parametrize("shown", ["4 8 2 9 1 3", "482-913", "48 29 13", "4.8.2.9.1.3", "319284"])
def test_a_one_time_code_split_or_reversed_is_masked(shown):
    assert entered(OTP).mask(f"your code: {shown}!") == f"your code: {MASK}!"


@pytest.mark.parametrize("value", ["a", "e", "ab", "the", "737", "7 3"])
def test_a_value_of_one_to_three_characters_is_masked_only_standing_alone(value):
    page = "The theme of the day: a beautiful tea set, 17370 sold, abc 737 etc."
    masked = entered(value).mask(page)
    assert len(masked) >= len(page) - 10, masked  # the page is not blanked
    assert entered(value).mask(f"got: {value}.") == f"got: {MASK}."


def test_a_short_code_is_not_masked_in_a_longer_number_a_price_or_a_date():
    values = entered("1099", "2024")
    assert (
        values.mask("10.99 EUR on 2024-01-15, item 21099")
        == "10.99 EUR on [redacted]-01-15, item 21099"
    )
    assert values.mask("PIN 1 0 9 9, 4202") == "PIN [redacted], [redacted]"


def test_ordinary_text_is_left_alone():
    page = (
        "Blue teapot 24.99 EUR. Order 114-1234567-1234567 placed 2024-01-15 12:30.\n"
        "Ships in 2 days; call +44 20 7946 0958. Reference A7F3-9921, 3 x 10.99, "
        "items 1 2 3 4 5 6 7 8 9 10. Hex id 9f86d081884c7d65 and base64 dGVhcG90."
    )
    values = entered(PASSWORD, LONG, OTP, CARD, "737")

    assert values.mask(page) == page


@settings(max_examples=100, deadline=None)
@given(
    value=st.text(
        st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zl", "Zp")),
        min_size=4,
        max_size=24,
    ).filter(lambda v: v.strip() == v and len(v.strip()) >= 4),
    echo=st.sampled_from(sorted(TEXT_ECHOES)),
    # A short code next to a digit is part of a longer number, not the code.
    before=st.text(st.characters(exclude_characters="0123456789"), max_size=20),
    after=st.text(st.characters(exclude_characters="0123456789"), max_size=20),
)
def test_any_value_in_any_dressed_up_form_is_masked_wherever_it_stands(value, echo, before, after):
    # A 4-5 digit code split by a number's separators reads as a price or a date.
    assume(not (value.isdigit() and len(value) < 6 and echo in ("dotted", "dashed")))
    shown = TEXT_ECHOES[echo](value)

    masked = entered(value).mask(before + shown + after)

    assert shown not in masked, (value, echo, masked)


def test_reach_is_the_longest_text_any_form_can_match():
    values = entered(PASSWORD, LONG, OTP, CARD, "737", "Zürich-Köln!")
    # What the regular expression engine says of the compiled pattern.
    longest = re._parser.parse(values._masker.pattern, re.IGNORECASE).getwidth()[1]  # type: ignore[attr-defined]

    assert longest < re._constants.MAXREPEAT and values.reach >= longest  # type: ignore[attr-defined]


@pytest.mark.parametrize("echo", ["spaced", "base64 after 2 bytes", "char codes, comma and space"])
def test_a_dressed_up_value_at_a_clip_edge_is_masked_before_the_string_is_cut(echo):
    values = entered(LONG)
    shown = TEXT_ECHOES[echo](LONG)
    notice = "x" * (CLIP["notice"] - 5) + shown
    raw = {
        "url": "http://shop.example/",
        "title": "",
        "text": notice,
        "textTruncated": False,
        "forms": [],
        "fields": [],
        "controls": [],
        "notices": [{"kind": "error", "text": notice}],
    }
    assert len(shown) <= values.reach

    page = finish(raw, values.mask, max_text=CLIP["notice"])

    # Five characters of the form itself are shown: masked.
    assert page["notices"][0]["text"] == "x" * (CLIP["notice"] - 5) + values.mask(shown)[:5]
    assert MASK[:2] in page["notices"][0]["text"]
