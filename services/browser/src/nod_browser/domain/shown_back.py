"""What a site shows back of the private values the runner entered.

A site may echo what it received ("Sorry, we got: ...&password=..."), in its
text, a field, a link or its address. Every value entered in a session is
found there as itself, URL-encoded (%xx, with %20 or + for a space) or as
HTML character references (&#33;, &#x21;, &excl;), in any case, and replaced,
in every page read of that session. The values are kept only as the compiled
pattern that finds them, in the session's memory, and never logged.
"""

import html.entities
import re
from collections import defaultdict

MASK = "[redacted]"
# Whitespace as a page may show a run of it: collapsed, "+", %20, &nbsp; ...
_WHITESPACE = (
    r"(?:\s|\+|%(?:20|09|0a|0d|c2%a0)|&nbsp;|&#0*(?:32|9|10|13|160);|&#x0*(?:20|9|a|d|a0);)+"
)
# The longest form a single character can take (a named character reference).
_LONGEST_FORM = 32


def _reference_names() -> dict[str, tuple[str, ...]]:
    names: dict[str, list[str]] = defaultdict(list)
    for name, char in html.entities.html5.items():
        if len(char) == 1 and name.endswith(";"):
            names[char].append(name)
    return {char: tuple(found) for char, found in names.items()}


_REFERENCE_NAMES = _reference_names()


def _forms_of(char: str) -> str:
    percent = "".join(f"%{byte:02x}" for byte in char.encode())
    forms = [
        re.escape(char),
        re.escape(percent),
        f"&#0*{ord(char)};",
        f"&#x0*{ord(char):x};",
        *(f"&{re.escape(name)}" for name in _REFERENCE_NAMES.get(char, ())),
    ]
    return "(?:" + "|".join(forms) + ")"


def pattern_for(value: str) -> str:
    """A regular expression (to be used case-insensitively) for the value in
    any of the forms a page may show it in."""
    parts = [
        _WHITESPACE if piece.isspace() else "".join(_forms_of(char) for char in piece)
        for piece in re.split(r"(\s+)", value)
        if piece
    ]
    pattern = "".join(parts)
    if value.isdigit():
        # A code or card number, not the same digits inside a longer number.
        pattern = f"(?<![0-9]){pattern}(?![0-9])"
    return pattern


class EnteredValues:
    """The private values entered in one session, as the pattern that masks them."""

    def __init__(self) -> None:
        self._patterns: dict[str, int] = {}  # pattern -> length of its value
        self._masker: re.Pattern[str] | None = None

    def remember(self, value: str) -> None:
        if not value.strip():
            return
        self._patterns[pattern_for(value)] = len(value)
        # Longest first: a value that begins another must not mask only its start.
        ordered = sorted(self._patterns, key=self._patterns.__getitem__, reverse=True)
        self._masker = re.compile("|".join(ordered), re.IGNORECASE)

    def mask(self, text: str) -> str:
        return self._masker.sub(MASK, text) if self._masker is not None and text else text

    @property
    def reach(self) -> int:
        """How far past the end of a clipped string a masked form may reach:
        strings are masked before they are clipped, with this much to spare."""
        return max(self._patterns.values(), default=0) * _LONGEST_FORM

    def forget(self) -> None:
        self._patterns.clear()
        self._masker = None

    def __repr__(self) -> str:
        return f"EnteredValues({len(self._patterns)} values)"
