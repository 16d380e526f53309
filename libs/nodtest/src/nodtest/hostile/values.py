"""The private values each hostile case hands to nod, every way a page or a
script could write one down, and the search that says which of them a text
holds: by case, kind and form, never the value itself.

Each case has its own values, so a sighting anywhere (a site's request, a
model request, a database row, a log line) names the case it came from.
The suite counts them itself; the person's values also become the
session's canaries the way every value sent to the vault does (the gRPC
recorder, nodtest.replies), so the session's last scan looks for them
too, in every gRPC reply as well."""

import bisect
import hashlib
import itertools
import re
import secrets
import string
import urllib.parse
from dataclasses import dataclass

from nodkit.cards import luhn_valid
from nodtest.canaries import Canary
from nodtest.leaks import forms as encoded_forms

PASSWORD = "password"
CODE = "code"
CARD = "card"
# What only an internal address serves (a stand-in for a service's metrics
# or a cloud's metadata): not the person's, but never to leave either.
INTERNAL = "internal"
PERSONS_KINDS = (PASSWORD, CODE, CARD)


@dataclass(frozen=True)
class Secret:
    case: str
    kind: str
    value: str

    def sighting(self, form: str) -> "Sighting":
        digest = hashlib.sha256(self.value.encode()).hexdigest()[:12]
        return Sighting(self.case, self.kind, form, digest, len(self.value))


@dataclass(frozen=True)
class Sighting:
    """A secret seen somewhere, named by its case, kind and the form it
    took, and known by its digest and length: never by its value."""

    case: str
    kind: str
    form: str
    digest: str = ""
    length: int = 0

    def __str__(self) -> str:
        return f"{self.kind} ({self.form})"


def _card_number() -> str:
    """A card number of its own (a test range, Luhn-valid), per case."""
    body = "4000" + "".join(secrets.choice(string.digits) for _ in range(11))
    return next(body + d for d in string.digits if luhn_valid(body + d))


@dataclass(frozen=True)
class CaseValues:
    case: str
    password: str
    code: str
    card: str
    internal: str

    @classmethod
    def make(cls, case: str) -> "CaseValues":
        alphabet = string.ascii_uppercase + string.digits
        return cls(
            case=case,
            # A "!" and a space: URL- and HTML-encoding change them.
            password=f"Hp{secrets.token_hex(5)}! q{secrets.choice(alphabet)}",
            code="".join(secrets.choice(alphabet) for _ in range(10)),
            card=_card_number(),
            internal=f"nod-internal-{secrets.token_hex(8)}",
        )

    def secrets(self) -> list[Secret]:
        return [
            Secret(self.case, PASSWORD, self.password),
            Secret(self.case, CODE, self.code),
            Secret(self.case, CARD, self.card),
            Secret(self.case, INTERNAL, self.internal),
        ]


@dataclass(frozen=True)
class Form:
    """One way a value can be written down. `squeezed`: looked for in the
    text with its white space taken out (a value one character per span)."""

    name: str
    text: str
    squeezed: bool = False


def forms(secret: Secret) -> list[Form]:
    """Every way the value can be written down: as it is, reversed, base64
    in each of its three alignments, hex, URL-, form-, HTML- and
    JSON-encoded, as character codes, one character at a time."""
    value = secret.value
    found = [Form(f.encoding, f.text) for f in encoded_forms(Canary(value, secret.kind))]
    # What a page's script makes of it (encodeURIComponent leaves !'()*~ be).
    found.append(Form("URL-encoded", urllib.parse.quote(value, safe="!'()*~")))
    found.append(Form("reversed", value[::-1]))
    codes = [str(ord(c)) for c in value]
    found += [Form("character codes", sep.join(codes)) for sep in (",", ", ", " ")]
    found.append(Form("one character at a time", _squeezed(value), squeezed=True))
    return found


WHITE_SPACE = re.compile(r"\s+")
# Between texts searched as one: no form of a value holds it.
SEPARATOR = "\x00"


def _squeezed(text: str) -> str:
    return WHITE_SPACE.sub("", text)


class Watch:
    """The secrets being looked for; a site, the model stand-in and the
    counting all search with it. Cases add theirs before their task runs."""

    def __init__(self) -> None:
        self._forms: dict[str, list[tuple[Secret, Form]]] = {}

    def add(self, values: CaseValues) -> None:
        self._forms[values.case] = [(s, form) for s in values.secrets() for form in forms(s)]

    def find(self, text: str, case: str | None = None) -> set[Sighting]:
        """The secrets `text` holds (only `case`'s, when given)."""
        return self.find_each([text], case)[0]

    def find_each(self, texts: list[str], case: str | None = None) -> list[set[Sighting]]:
        """For each text, the secrets it holds, each in the first form found.
        The texts are searched as one (each form once, in C), and a
        sighting's offset says which text it is in."""
        searched = [(s, f) for c, kept in self._forms.items() if case in (None, c) for s, f in kept]
        views = {False: texts, True: [_squeezed(t) for t in texts]}
        joined = {squeezed: SEPARATOR.join(view) for squeezed, view in views.items()}
        starts = {squeezed: _starts(view) for squeezed, view in views.items()}
        found: list[dict[tuple[str, str], Sighting]] = [{} for _ in texts]
        for secret, form in searched:
            text, offsets = joined[form.squeezed], starts[form.squeezed]
            at = text.find(form.text)
            while at != -1:
                index = bisect.bisect_right(offsets, at) - 1
                key = (secret.case, secret.kind)
                found[index].setdefault(key, secret.sighting(form.name))
                following = offsets[index + 1] if index + 1 < len(offsets) else len(text)
                at = text.find(form.text, following)
        return [set(sightings.values()) for sightings in found]


def _starts(texts: list[str]) -> list[int]:
    """Where each text begins once they are joined."""
    lengths = (len(text) + len(SEPARATOR) for text in texts[:-1])
    return list(itertools.accumulate(lengths, initial=0))
