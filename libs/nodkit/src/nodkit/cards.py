"""What counts as a card number, in one place for everyone: the vault's check
of a number, every service's free text and ids, the log redactor and page
reads.

In free text a card number is a Luhn-valid run of 13-19 digits, written
unbroken or in groups joined by a separator (space, no-break space, dot,
dash, underscore, slash; repeated, as in two spaces), wherever it stands:
next to letters (`card4242...`, `4242...x`) or other numbers (`id-<card>-1`).
A run is a card number when some groups in a row of it are, joined the same
way throughout ("4242 4242 4242 4242" in "ref 12-4242 4242 4242 4242"):
real numbers are written so, and a list of prices ("10.99 12.50 8.75") is
not one number. An unbroken run of digits counts only whole: the digits of a
longer number are that number's.

Two kinds of id are not card numbers even where their digits would be: a
UUID, and a hex string of 24 or more characters with a letter in it (a
digest, an object id, `uuid4().hex`). Without this, one in a few thousand
ids the services make themselves would be refused.
"""

import re
from collections.abc import Iterator

NUMBER_MASK = "[redacted-number]"
MIN_DIGITS = 13
MAX_DIGITS = 19

# Horizontal whitespace (tabs, no-break, figure, thin and narrow no-break
# spaces), dots, dashes (hyphen-minus and the Unicode hyphens and en dash),
# underscores, slashes. A line break ends a number.
_WHITESPACE = " \t\u00a0\u2007\u2009\u202f"
_SEPARATORS = _WHITESPACE + "._/-\u2010\u2011\u2012\u2013"
_SEPARATOR = "[" + re.escape(_SEPARATORS) + "]"
# Digits in groups; up to four separator characters between two groups.
_RUN = re.compile(rf"[0-9]+(?:{_SEPARATOR}{{1,4}}[0-9]+)*")
_GROUP = re.compile(r"[0-9]+")
_IDS = re.compile(
    r"(?<![0-9a-f])(?:"
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    r"|(?=[0-9]*[a-f])[0-9a-f]{24,}"
    r")(?![0-9a-f])",
    re.IGNORECASE,
)


def digits_of(value: str) -> str:
    """A card number as typed, grouped by spaces or dashes, as bare digits."""
    return re.sub(r"[ -]", "", value)


def luhn_valid(digits: str) -> bool:
    total = 0
    for position, char in enumerate(reversed(digits)):
        n = int(char) * (2 if position % 2 else 1)
        total += n - 9 if n > 9 else n
    return total % 10 == 0


def _joint(separator: str) -> frozenset[str]:
    """How two groups are joined: which separator characters, whitespace as
    one ("4242  4242" and "4242 4242" are joined alike)."""
    return frozenset(" " if char in _WHITESPACE else char for char in separator)


def _numbers_in_run(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    groups = [m.span() for m in _GROUP.finditer(text, start, end)]
    for first in range(len(groups)):
        digits, joint = "", None
        for last in range(first, len(groups)):
            if last > first:
                this = _joint(text[groups[last - 1][1] : groups[last][0]])
                if joint is not None and this != joint:
                    break
                joint = this
            digits += text[groups[last][0] : groups[last][1]]
            if len(digits) > MAX_DIGITS:
                break
            if len(digits) >= MIN_DIGITS and luhn_valid(digits):
                yield groups[first][0], groups[last][1]


def card_number_spans(text: str) -> list[tuple[int, int]]:
    """Where card numbers are in `text`: (start, end) pairs in order, those
    that overlap made one."""
    found: list[tuple[int, int]] = []
    ids: list[tuple[int, int]] | None = None
    for run in _RUN.finditer(text):
        if sum(char.isdigit() for char in run.group()) < MIN_DIGITS:
            continue
        for start, end in _numbers_in_run(text, run.start(), run.end()):
            if ids is None:
                ids = [m.span() for m in _IDS.finditer(text)]
            if any(low <= start and end <= high for low, high in ids):
                continue
            if found and start <= found[-1][1]:
                found[-1] = (found[-1][0], max(end, found[-1][1]))
            else:
                found.append((start, end))
    return found


def card_numbers_in(text: str) -> list[str]:
    return [text[start:end] for start, end in card_number_spans(text)]


def contains_card_number(text: str) -> bool:
    return bool(card_number_spans(text))


def mask_card_numbers(text: str, mask: str = NUMBER_MASK) -> str:
    spans = card_number_spans(text)
    if not spans:
        return text
    pieces, at = [], 0
    for start, end in spans:
        pieces += [text[at:start], mask]
        at = end
    pieces.append(text[at:])
    return "".join(pieces)
