"""How a site may show back a value it received, dressed up so that an exact
match misses it: what the masking tests echo, in plain Python (the unit
tests) and as a real page (the page tests)."""

import base64
import html
from collections.abc import Callable
from urllib.parse import quote, quote_plus

Echo = Callable[[str], str]


def _b64_inside(value: str, before: bytes, alphabet=base64.b64encode) -> str:
    """The value inside a longer base64 string, at the alignment `before` gives it."""
    return alphabet(before + value.encode() + b'"}').decode()


TEXT_ECHOES: dict[str, Echo] = {
    "plain": lambda v: v,
    "upper case": str.upper,
    "swapped case": str.swapcase,
    "reversed": lambda v: v[::-1],
    "reversed, upper case": lambda v: v[::-1].upper(),
    "spaced": " ".join,
    "two spaces apart": "  ".join,
    "a character per line": "\n".join,
    "dotted": ".".join,
    "dashed": "-".join,
    "reversed and spaced": lambda v: " ".join(v[::-1]),
    "URL-encoded": lambda v: quote(v, safe=""),
    "form-encoded": quote_plus,
    "URL-encoded, reversed": lambda v: quote(v[::-1], safe=""),
    "HTML-escaped": html.escape,
    "decimal references": lambda v: "".join(f"&#{ord(c)};" for c in v),
    "hex references": lambda v: "".join(f"&#x{ord(c):X};" for c in v),
    "base64": lambda v: base64.b64encode(v.encode()).decode(),
    "base64 after 1 byte": lambda v: _b64_inside(v, b"x"),
    "base64 after 2 bytes": lambda v: _b64_inside(v, b"xy"),
    "base64 after 3 bytes": lambda v: _b64_inside(v, b'{"password": "'),
    "URL-safe base64 after 1 byte": lambda v: _b64_inside(v, b"?", base64.urlsafe_b64encode),
    "URL-safe base64 after 2 bytes": lambda v: _b64_inside(v, b"??", base64.urlsafe_b64encode),
    "hex": lambda v: v.encode().hex(),
    "HEX": lambda v: v.encode().hex().upper(),
    "hex bytes spaced": lambda v: " ".join(f"{b:02x}" for b in v.encode()),
    "hex bytes with colons": lambda v: ":".join(f"{b:02X}" for b in v.encode()),
    "\\x escapes": lambda v: "".join(f"\\x{b:02x}" for b in v.encode()),
    "\\u escapes": lambda v: "".join(f"\\u{ord(c):04x}" for c in v),
    "char codes, commas": lambda v: ",".join(str(ord(c)) for c in v),
    "char codes, comma and space": lambda v: ", ".join(str(ord(c)) for c in v),
    "char codes, semicolons": lambda v: ";".join(str(ord(c)) for c in v),
    "char codes, spaces": lambda v: " ".join(str(ord(c)) for c in v),
    "hex char codes": lambda v: ",".join(f"0x{ord(c):x}" for c in v),
    "hex char codes, semicolons": lambda v: "; ".join(f"{ord(c):x}" for c in v),
}

# A card number's digits as a page may show part of it: any 6 or more in a row.
CARD_ECHOES: dict[str, Echo] = {
    "ending with its last 12": lambda n: f"Ending {n[-12:]}",
    "its first 6": lambda n: f"BIN {n[:6]}",
    "6 from the middle": lambda n: f"ref {n[5:11]}",
    "in groups of 4": lambda n: " ".join(n[i : i + 4] for i in range(0, len(n), 4)),
    "last 8 dotted": lambda n: ".".join(n[-8:]),
    "the middle, reversed": lambda n: n[3:13][::-1],
    "inside a longer number": lambda n: f"order 9{n[2:10]}7",
    "a digit per line": lambda n: "\n".join(n),
}
