"""What a site shows back of the private values the runner entered.

A site may echo what it received ("Sorry, we got: ...&password=..."), in its
text, a field, a link or its address, and a hostile one may dress it up so
that an exact match misses it. Every value entered in a session is found in
every page read of that session, and replaced, in any of these forms:

- as itself, in any case, its characters maybe split by blank space, line
  breaks or the separators of a number (a value shown one character per
  element reads so), each character maybe URL-encoded (%xx) or an HTML
  character reference (&#33;, &#x21;, &excl;);
- reversed, the same ways;
- base64 (standard or URL-safe alphabet, also inside a longer base64 string:
  at each of the three alignments a value may take there);
- hex (its UTF-8 bytes, maybe separated or written \\x73, 0x73, \\u0073);
- character codes, decimal or hex, joined by commas, semicolons or spaces
  ("115,101,99").

A value of many digits (a card number, a long code) is also masked wherever
any 6 of its digits in a row show, in order or reversed, whatever stands
around them ("Ending 424242424242"). A value of 1-3 characters (a security
code) is masked only as itself standing alone, so that it can't blank a page.

The values are kept only as the compiled pattern that finds them, one per
session, in its memory, and never logged. Every form has a bounded length, so
`reach` says how far past a clipped string's end a form can reach.
"""

import base64
import html.entities
import re
from collections import defaultdict
from dataclasses import dataclass

MASK = "[redacted]"
# Shorter values are masked only as themselves, standing alone.
MIN_TRANSFORMED = 4
# How many digits of a longer number in a row count as showing it.
MIN_DIGIT_RUN = 6
# A base64 piece shorter than this is too likely to occur by chance.
MIN_BASE64 = 4
# Leading zeros a character reference or code may carry.
ZEROS = 8


@dataclass(frozen=True)
class Form:
    """A regular expression (used case-insensitively), the longest text it
    can match, and what a match may begin with: items of a character class
    (a page's text is scanned for those alone; most of it is passed over
    at a glance), or None for anything."""

    pattern: str
    width: int
    starts: frozenset[str] | None
    # Whether it may match nothing (then what follows it may begin a match).
    empty: bool = False

    def bounded(self, before: str, after: str) -> "Form":
        return Form(f"{before}{self.pattern}{after}", self.width, self.starts, self.empty)


def _letters(text: str) -> frozenset[str]:
    return frozenset(re.escape(c) for c in {text, text.lower(), text.upper()} if len(c) == 1)


def _alternatives(forms: list[Form]) -> Form:
    starts: frozenset[str] | None = frozenset()
    for form in forms:
        starts = None if starts is None or form.starts is None else starts | form.starts
    return Form(
        "(?:" + "|".join(f.pattern for f in forms) + ")",
        max(f.width for f in forms),
        starts,
        any(f.empty for f in forms),
    )


def _sequence(forms: list[Form]) -> Form:
    starts: frozenset[str] | None = frozenset()
    for form in forms:
        starts = None if starts is None or form.starts is None else starts | form.starts
        if not form.empty:
            break
    return Form(
        "".join(f.pattern for f in forms),
        sum(f.width for f in forms),
        starts,
        all(f.empty for f in forms),
    )


def _reference_names() -> dict[str, tuple[str, ...]]:
    names: dict[str, list[str]] = defaultdict(list)
    for name, char in html.entities.html5.items():
        if len(char) == 1 and name.endswith(";"):
            names[char].append(name)
    return {char: tuple(found) for char, found in names.items()}


_REFERENCE_NAMES = _reference_names()


def _char(char: str) -> Form:
    """One character as itself, %-encoded or an HTML character reference."""
    percent = "".join(f"%{byte:02x}" for byte in char.encode())
    decimal, hexadecimal = str(ord(char)), f"{ord(char):x}"
    amp = frozenset("&")
    forms = [
        Form(re.escape(char), 1, _letters(char)),
        Form(re.escape(percent), len(percent), frozenset("%")),
        Form(f"&#0{{0,{ZEROS}}}{decimal};", 3 + ZEROS + len(decimal), amp),
        Form(f"&#x0{{0,{ZEROS}}}{hexadecimal};", 4 + ZEROS + len(hexadecimal), amp),
        *(
            Form(f"&{re.escape(name)}", len(name) + 1, amp)
            for name in _REFERENCE_NAMES.get(char, ())
        ),
    ]
    return _alternatives(forms)


# Blank space as a page may show a run of it: collapsed, none at all, "+",
# %20, &nbsp; ...; and between two characters of a value, a few of blank
# space or the separators of a number. Both possessive (what they take they
# keep: no backtracking), so neither may take what the next character of the
# value may begin with.
_BLANK_UNITS = (
    r"\s",
    r"\+",
    r"%(?:20|09|0a|0d|c2%a0)",
    r"&nbsp;",
    rf"&#0{{0,{ZEROS}}}(?:32|9|10|13|160);",
    rf"&#x0{{0,{ZEROS}}}(?:20|9|a|d|a0);",
)
_BLANK_UNIT_WIDTH = 4 + ZEROS + 3
_BLANK_RUN = 8
_GAP_UNITS = (r"\s", "&nbsp;", "%20")
_GAP_CHARS = "._/+\u2010\u2011\u2012\u2013-"
_GAP_UNIT_WIDTH = len("&nbsp;")
_GAP_RUN = 3


def _not_taking(units: tuple[str, ...], following: str) -> list[str]:
    """The units that can't begin what follows: the character itself (any
    case), its %-encoding or its character reference."""
    return [
        unit
        for unit in units
        if not (
            re.fullmatch(unit, following, re.IGNORECASE)
            or (following == "%" and unit.startswith("%"))
            or (following == "&" and unit.startswith("&"))
        )
    ]


_UNIT_STARTS = frozenset({r"\s", r"\+", "%", "&"})


def _blank(following: str) -> Form:
    """The value's own blank space: as any run of blank space or separators."""
    chars = "".join(c for c in _GAP_CHARS if c.lower() != following.lower())
    units = [*_not_taking(_BLANK_UNITS, following), "[" + re.escape(chars) + "]"]
    pattern = f"(?:{'|'.join(units)}){{0,{_BLANK_RUN}}}+"
    starts = _UNIT_STARTS | {re.escape(c) for c in chars}
    return Form(pattern, _BLANK_RUN * _BLANK_UNIT_WIDTH, starts, empty=True)


def _gap(following: str, separators: bool = True) -> Form:
    units = _not_taking(_GAP_UNITS, following)
    chars = "".join(c for c in _GAP_CHARS if c.lower() != following.lower()) if separators else ""
    pattern = "|".join([*units, "[" + re.escape(chars) + "]"] if chars else units)
    starts = _UNIT_STARTS | {re.escape(c) for c in chars}
    return Form(f"(?:{pattern}){{0,{_GAP_RUN}}}+", _GAP_RUN * _GAP_UNIT_WIDTH, starts, empty=True)


def _spelled(value: str, separators: bool = True) -> Form:
    """The value's characters in order, each in any of its forms, split or
    not (by blank space alone, without `separators`)."""
    parts: list[Form] = []
    pieces = [piece for piece in re.split(r"(\s+)", value) if piece]
    for at, piece in enumerate(pieces):
        if piece.isspace():
            following = pieces[at + 1][0] if at + 1 < len(pieces) else ""
            parts.append(_blank(following))
            continue
        for i, char in enumerate(piece):
            if i:
                parts.append(_gap(char, separators))
            parts.append(_char(char))
    return _sequence(parts)


def _base64(value: str) -> list[Form]:
    """The characters of the value's base64 that depend on nothing around
    it, at each alignment; + and / also as URL-safe - and _ or %-encoded."""
    data = value.encode()
    forms = []
    for offset in range(3):
        encoded = base64.b64encode(b"\x00" * offset + data).decode()
        first = -(-8 * offset // 6)
        last = 8 * (offset + len(data)) // 6
        piece = encoded[first:last]
        if len(piece) < MIN_BASE64:
            continue
        chars = {"+": r"(?:\+|-|%2[bB])", "/": r"(?:/|_|%2[fF])"}
        starts = {"+": frozenset({r"\+", r"\-", "%"}), "/": frozenset({"/", "_", "%"})}
        pattern = "".join(chars.get(c, c) for c in piece)
        begins = starts.get(piece[0], frozenset({piece[0]}))
        forms.append(Form(f"(?-i:{pattern})", 3 * len(piece), begins))
    return forms


_CODE_JOINER = Form(r"(?:\s{0,2}[,;]\s{0,2}|\s{1,3})", 5, None)
_HEX_JOINER = Form(r"[\s,;:]{0,3}+", 3, None, empty=True)
_HEX_PREFIX_STARTS = frozenset({r"\\", "0", "u", "%"})


def _hex(value: str) -> list[Form]:
    """The UTF-8 bytes in hex; for a value beyond ASCII, its code points too."""
    prefix = r"(?:\\x|0x|\\u00|u\+00|%u00)?"
    forms = [
        _joined(
            [
                Form(f"{prefix}{byte:02x}", 6, _HEX_PREFIX_STARTS | _letters(f"{byte:02x}"[0]))
                for byte in value.encode()
            ],
            _HEX_JOINER,
        ),
    ]
    if not value.isascii():
        points = [
            Form(
                rf"(?:\\u\{{?|u\+|0x|\\x)?0{{0,4}}{ord(c):x}\}}?",
                4 + 4 + 6 + 1,
                _HEX_PREFIX_STARTS | _letters(f"{ord(c):x}"[0]),
            )
            for c in value
        ]
        forms.append(_joined(points, _HEX_JOINER))
    return forms


def _decimal_codes(value: str) -> Form:
    codes = [
        Form(f"0{{0,3}}{ord(c)}", 3 + len(str(ord(c))), frozenset({"0", str(ord(c))[0]}))
        for c in value
    ]
    return _joined(codes, _CODE_JOINER).bounded("(?<![0-9])", "(?![0-9])")


def _joined(forms: list[Form], joiner: Form) -> Form:
    parts: list[Form] = []
    for i, form in enumerate(forms):
        if i:
            parts.append(joiner)
        parts.append(form)
    return _sequence(parts)


def _digit_runs(digits: str) -> list[Form]:
    """Any MIN_DIGIT_RUN or more of the digits in a row, split or not: one
    alternative per place a run may start, reaching as far as it goes."""
    forms = []
    for start in range(len(digits) - MIN_DIGIT_RUN + 1):
        rest = digits[start:]
        if any(digits[earlier:].startswith(rest) for earlier in range(start)):
            continue  # an earlier start already reaches every run this one does
        pattern, width = "", 0
        for i in reversed(range(MIN_DIGIT_RUN, len(rest))):
            gap, char = _gap(rest[i]), _char(rest[i])
            pattern = f"(?:{gap.pattern}{char.pattern}{pattern})?"
            width += gap.width + char.width
        head = _spelled(rest[:MIN_DIGIT_RUN])
        forms.append(Form(head.pattern + pattern, head.width + width, head.starts))
    return forms


def _alone(value: str) -> Form:
    """A short value, as itself (a character maybe encoded), standing alone:
    a digit not inside a longer number, a letter not inside a word."""
    inner = _sequence([_char(c) for c in value])
    if value.isdigit():
        return inner.bounded("(?<![0-9])", "(?![0-9])")
    return inner.bounded(r"(?<![^\W_])", r"(?![^\W_])")


def forms_of(value: str) -> list[Form]:
    """Every form the value may be shown in."""
    if len(value.strip()) < MIN_TRANSFORMED:
        return [_alone(value.strip())]
    digits = re.sub(r"[\s-]", "", value)
    if not digits.isdigit():
        # Case is ignored, but for letters whose other case is longer ("ß", "SS").
        cased = [other for other in (value.upper(), value.lower()) if len(other) != len(value)]
        shown = list(dict.fromkeys([value, *cased]))
        forms = [_spelled(one) for one in shown] + [_spelled(one[::-1]) for one in shown]
    elif len(digits) < MIN_DIGIT_RUN:
        # A short code: not the same digits inside a longer number, nor a
        # price or a date ("10.99" is no PIN 1099).
        forms = [
            _spelled(shown, separators=False).bounded("(?<![0-9])", "(?![0-9])")
            for shown in dict.fromkeys([value, value[::-1], digits, digits[::-1]])
        ]
    else:
        forms = [
            _spelled(shown) for shown in dict.fromkeys([value, value[::-1], digits, digits[::-1]])
        ]
        if len(digits) > MIN_DIGIT_RUN:
            forms += _digit_runs(digits) + _digit_runs(digits[::-1])
    forms += _base64(value) + _hex(value) + [_decimal_codes(value)]
    return forms


class EnteredValues:
    """The private values entered in one session, as the pattern that masks them."""

    def __init__(self) -> None:
        self._forms: dict[str, tuple[int, Form]] = {}  # value's pattern -> its length, form
        self._masker: re.Pattern[str] | None = None

    def remember(self, value: str) -> None:
        if not value.strip():
            return
        form = _alternatives(forms_of(value))
        self._forms[form.pattern] = (len(value), form)
        # Longest first: a value that begins another must not mask only its start.
        ordered = sorted(self._forms.values(), key=lambda known: known[0], reverse=True)
        every = _alternatives([form for _, form in ordered])
        if every.starts is not None and not every.empty:
            # A glance at one character passes over most of a page.
            every = every.bounded("(?=[" + "".join(sorted(every.starts)) + "])", "")
        self._masker = re.compile(every.pattern, re.IGNORECASE)

    def mask(self, text: str) -> str:
        return self._masker.sub(MASK, text) if self._masker is not None and text else text

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where `mask` would mask: (start, end) of each match, in order
        (a page's picture paints over what holds them)."""
        if self._masker is None or not text:
            return []
        found = self._masker.finditer(text)
        return [match.span() for match in found if match.end() > match.start()]

    @property
    def any(self) -> bool:
        """Whether a value was entered in the session."""
        return self._masker is not None

    @property
    def reach(self) -> int:
        """How far past the end of a clipped string a masked form may reach:
        strings are masked before they are clipped, with this much to spare."""
        return max((form.width for _, form in self._forms.values()), default=0)

    def copy(self) -> "EnteredValues":
        """The values known now, for a look's session opened from this one:
        it masks what this one's reads mask. A snapshot: what either learns
        later, the other never does."""
        copied = EnteredValues()
        copied._forms = dict(self._forms)
        copied._masker = self._masker
        return copied

    def forget(self) -> None:
        self._forms.clear()
        self._masker = None

    def __repr__(self) -> str:
        return f"EnteredValues({len(self._forms)} values)"
