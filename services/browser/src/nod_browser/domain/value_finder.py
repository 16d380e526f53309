"""Finding an entry's values in what a page sends: a request's address,
headers or body, or a WebSocket message. A value is found as itself,
URL-encoded (%xx in either case, a space as %20 or +), as a JSON string
has it (\\" \\\\ \\/ \\n, \\uXXXX), and in those forms combined (a JSON string
in a query string), in any case; a number (a card's, a code) also with the
spaces or dashes it is often written with, and never as part of a longer
number. The values are kept only as the compiled pattern, never logged.

Kept apart from shown_back.py, which finds what a page shows (HTML
character references, collapsed whitespace) for masking reads.
"""

import re
from collections.abc import Iterable

_JSON_SHORT = {'"': '\\"', "\\": "\\\\", "/": "\\/", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_JSON_SHORT |= {"\b": "\\b", "\f": "\\f"}
# Between the digits of a number: nothing, or one separator in any of its forms.
_DIGIT_GAP = r"(?:[\s-]|%20|%2d|\+)?"


def _url_forms(char: str) -> str:
    """One character as itself or percent-encoded (a space also as +)."""
    percent = "".join(f"%{byte:02x}" for byte in char.encode())
    forms = [re.escape(char), re.escape(percent)] + ([r"\+"] if char == " " else [])
    return "(?:" + "|".join(forms) + ")"


def _utf16_escapes(char: str) -> str:
    units = char.encode("utf-16-be")
    return "".join(f"\\u{units[i]:02x}{units[i + 1]:02x}" for i in range(0, len(units), 2))


def _forms_of(char: str) -> str:
    json_forms = {char, _utf16_escapes(char)}
    if char in _JSON_SHORT:
        json_forms.add(_JSON_SHORT[char])
    spelled = sorted("".join(_url_forms(c) for c in form) for form in json_forms)
    return "(?:" + "|".join(spelled) + ")"


def _is_number(value: str) -> bool:
    digits = [c for c in value if c.isdigit()]
    return bool(digits) and all(c.isdigit() or c in " -" for c in value)


def pattern_for(value: str) -> str:
    """A regular expression (used case-insensitively) for the value in any
    form a request may carry it in."""
    if _is_number(value):
        digits = [c for c in value if c.isdigit()]
        return "(?<![0-9])" + _DIGIT_GAP.join(digits) + "(?![0-9])"
    return "".join(_forms_of(char) for char in value)


class ValueFinder:
    """The values of one entry, as one compiled pattern."""

    def __init__(self, values: Iterable[str]) -> None:
        patterns = sorted({pattern_for(v) for v in values if v.strip()}, key=len, reverse=True)
        self._pattern = re.compile("|".join(patterns), re.IGNORECASE) if patterns else None

    @property
    def empty(self) -> bool:
        return self._pattern is None

    def found_in(self, text: str) -> bool:
        return self._pattern is not None and self._pattern.search(text) is not None

    def __repr__(self) -> str:
        return "ValueFinder(...)"
