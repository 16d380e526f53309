"""Card number facts shared by the vault's checks and the log redactor."""

import re

# 12-19 digits, optionally grouped by spaces or dashes, standing alone (not
# part of a hex id or a UUID): shaped like a card number. Luhn decides.
CARD_NUMBER_SHAPE = re.compile(r"(?<![0-9A-Za-z-])(?:\d[ -]?){11,18}\d(?![0-9A-Za-z-])")


def digits_of(value: str) -> str:
    """A card number as typed, grouped by spaces or dashes, as bare digits."""
    return re.sub(r"[ -]", "", value)


def luhn_valid(digits: str) -> bool:
    total = 0
    for position, char in enumerate(reversed(digits)):
        n = int(char) * (2 if position % 2 else 1)
        total += n - 9 if n > 9 else n
    return total % 10 == 0


def is_card_number(text: str) -> bool:
    return luhn_valid(digits_of(text))


def contains_card_number(text: str) -> bool:
    return any(is_card_number(m.group()) for m in CARD_NUMBER_SHAPE.finditer(text))
