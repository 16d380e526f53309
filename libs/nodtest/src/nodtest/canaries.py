"""The private values a test session hands to nod: passwords, one-time codes,
card numbers, security codes. Each is a canary: at the end of the session
nodtest.leak_scan looks for every one of them in everything nod let a caller
see, and any sighting fails the session.

The fixed ones are below; the rest are registered as the session goes: by
the helpers that type them (nodtest.claims, nodtest.codes), and by the
gRPC recorder (nodtest.replies) for every private field a test sends to the
vault or the claims service grants."""

import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass

CANARY_PASSWORD = "canary-pw-7Q4zX9!"
CANARY_CARD = "4111111111111111"

# The vault's private field names (nod_claims.domain.vault FIELDS and
# SECURITY_CODE_NAMES, and the code a claim grants from a TOTP seed).
PRIVATE_FIELDS = frozenset(
    {
        "password",
        "number",
        "security_code",
        "cvc",
        "cvv",
        "cvv2",
        "csc",
        "code",
        "totp_seed",
        "totp_code",
    }
)

# Below this, a value is too common to look for at all ("1", "ab": the
# bad-input tests' refused values).
MIN_LENGTH = 3
# From this length on, a value is distinctive wherever it shows.
DISTINCTIVE_LENGTH = 8
# Six or seven digits (a one-time code) are distinctive as a whole token.
TOKEN_DIGITS = re.compile(r"\d{6,7}")


class Shape(enum.Enum):
    """How a value can be told apart from the text around it."""

    # Long enough to look for as it is, in any encoding.
    DISTINCTIVE = "distinctive"
    # A one-time code's digits: only a whole token counts (not the tail of a
    # timestamp's microseconds, a port or an id).
    TOKEN = "token"
    # A security code's three or four digits: only right after a private
    # field's name ("cvc": "737", security_code=737).
    KEYED = "keyed"


@dataclass(frozen=True)
class Canary:
    value: str
    # What it is (password, card number, ...), for the report.
    kind: str

    @property
    def shape(self) -> Shape:
        if len(self.value) >= DISTINCTIVE_LENGTH:
            return Shape.DISTINCTIVE
        if TOKEN_DIGITS.fullmatch(self.value):
            return Shape.TOKEN
        return Shape.KEYED


class Canaries:
    """One session's canaries (or a test's own, to try the scan on)."""

    def __init__(self) -> None:
        self._by_value: dict[str, Canary] = {}

    def register(self, value: str, kind: str) -> str:
        """Remembers `value` as private; returns it, so a helper can type
        `register(value, ...)` where it types the value."""
        if _recognisable(value) and value not in self._by_value:
            self._by_value[value] = Canary(value, kind)
        return value

    def register_fields(self, fields: Mapping[str, str], where: str) -> None:
        """The private ones among a vault item's or entry's fields."""
        for name, value in fields.items():
            if name in PRIVATE_FIELDS:
                self.register(value, f"{name} ({where})")

    def __iter__(self):
        return iter(tuple(self._by_value.values()))

    def __len__(self) -> int:
        return len(self._by_value)


def _recognisable(value: str) -> bool:
    """Long enough, and not a mask: a test may send back what a listing
    showed ("••••••••"), which is nobody's private value. Nor one character
    over and over: the fuzzing tests' padding ("xxxx…") shows up in other
    tests' huge values and paths, and says nothing of where it came from."""
    return len(value) >= MIN_LENGTH and any(c.isalnum() for c in value) and len(set(value)) > 1


_session = Canaries()


def session_canaries() -> Canaries:
    return _session


def register(value: str, kind: str) -> str:
    return _session.register(value, kind)


def register_fields(fields: Mapping[str, str], where: str) -> None:
    _session.register_fields(fields, where)


register(CANARY_PASSWORD, "password")
register(CANARY_CARD, "card number")
