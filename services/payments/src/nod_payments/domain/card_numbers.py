"""Card numbers never reach this service's tables or replies (G8).

Two notions, both applied: what counts as a card number in any text
(nodkit.cards: a Luhn-valid 13-19 digit number however it is grouped and
whatever it stands next to), which nodkit.validation refuses in every text
and id before this service sees it; and here, an unbroken run of 13 or more
digits (what a scan of the database for card numbers looks for). An order
number that happens to look like one is refused too; the order reference is
optional, and without it the order is named by its contents.
"""

import re

from nodkit import cards
from nodkit.errors import InvalidArgument

DIGIT_RUN = re.compile(r"\d{13,}")
MASK = cards.NUMBER_MASK


def refuse_card_numbers(field: str, value: str) -> str:
    """For a value validation.text or printable_id has checked already."""
    if DIGIT_RUN.search(value) or cards.contains_card_number(value):
        raise InvalidArgument(field, "must not contain a card number")
    return value


def mask_card_numbers(value: str) -> str:
    return DIGIT_RUN.sub(MASK, cards.mask_card_numbers(value))
