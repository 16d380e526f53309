"""Card numbers as free text may hold them: hypothesis strategies that write a
Luhn-valid number in groups of any size, joined by any separator (repeated),
next to letters, words or other numbers; and the shapes that were once
stored verbatim, as plain examples. What nodkit.cards must find."""

import itertools

from hypothesis import strategies as st

from nodkit.cards import luhn_valid

SEPARATORS = (" ", "\u00a0", "\u202f", "\t", ".", "-", "_", "/", "\u2013")
# What a card number may stand next to: none of it ends or begins with a digit
# that would make the number a longer one.
BEFORE = ("", "rq-", "card", "id-", "x", "ref ", "card: ", "(", "id-7-", "№", "é", "\n")
AFTER = ("", "x", "-1", ".", " ", "-", "_v2", "/", ")", "x9", " 12", "\n", "é")

CARD = "4242424242424242"
AMEX = "378282246310005"
# Shapes once stored verbatim by some service, each a place of its own.
SEEN_STORED = (
    f"rq-{CARD}",
    f"card{CARD}",
    f"{CARD}x",
    f"id-{CARD}-1",
    "4242.4242.4242.4242",
    "4242_4242_4242_4242",
    "4242/4242/4242/4242",
    "4242\u00a04242\u00a04242\u00a04242",
    "4242  4242  4242  4242",
    "3782 822463 10005",
)


def with_check_digit(body: str) -> str:
    return next(body + digit for digit in "0123456789" if luhn_valid(body + digit))


card_numbers = st.integers(min_value=12, max_value=18).flatmap(
    lambda length: st.text("0123456789", min_size=length, max_size=length).map(with_check_digit)
)


@st.composite
def written(draw, number: str) -> str:
    """The number in groups of any size, joined by one separator repeated
    up to three times."""
    cuts = draw(st.sets(st.integers(1, len(number) - 1), max_size=len(number) - 1))
    separator = draw(st.sampled_from(SEPARATORS)) * draw(st.integers(1, 3))
    edges = [0, *sorted(cuts), len(number)]
    return separator.join(number[a:b] for a, b in itertools.pairwise(edges))


@st.composite
def card_in_text(draw) -> tuple[str, str, str]:
    """(the number, as it is written, the text it is written in)."""
    number = draw(card_numbers)
    shown = draw(written(number))
    text = draw(st.sampled_from(BEFORE)) + shown + draw(st.sampled_from(AFTER))
    return number, shown, text


def _number_in(text: str) -> str:
    return CARD if CARD in "".join(c for c in text if c.isdigit()) else AMEX


def card_texts() -> st.SearchStrategy[tuple[str, str]]:
    """(a card number, a text that holds it): the known shapes among them."""
    return st.one_of(
        st.sampled_from([(_number_in(text), text) for text in SEEN_STORED]),
        card_in_text().map(lambda made: (made[0], made[2])),
    )
