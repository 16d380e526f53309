"""Card number facts shared by the vault's checks and the log redactor."""

import re


def digits_of(value: str) -> str:
    """A card number as typed, grouped by spaces or dashes, as bare digits."""
    return re.sub(r"[ -]", "", value)


def luhn_valid(digits: str) -> bool:
    total = 0
    for position, char in enumerate(reversed(digits)):
        n = int(char) * (2 if position % 2 else 1)
        total += n - 9 if n > 9 else n
    return total % 10 == 0
