"""Finding canaries in observations: each private value as it is, and as it
would look base64-, hex-, URL-, HTML- or JSON-encoded (a card number also
in groups, with spaces or dashes). Reports say which canary, where, and an
excerpt with the value masked."""

import base64
import bisect
import html
import itertools
import json
import re
import urllib.parse
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import ahocorasick

from nodtest.canaries import DISTINCTIVE_LENGTH, PRIVATE_FIELDS, Canary, Shape
from nodtest.observed import Observation

EXCERPT_CHARS = 40
# Between observations when they are searched as one text: no form of a
# value contains it, so no sighting spans two observations.
SEPARATOR = "\x00"
BASE64_CHAR = re.compile(r"[A-Za-z0-9+/_=-]")
# A base64 run of fewer characters could be anything's.
MIN_BASE64_FRAGMENT = 12


@dataclass(frozen=True)
class Form:
    """One way a canary can be written down."""

    encoding: str
    text: str


@dataclass(frozen=True)
class Leak:
    canary: Canary
    encoding: str
    where: str
    excerpt: str


def forms(canary: Canary) -> list[Form]:
    value = canary.value
    raw = value.encode()
    found = [Form("plain", value)]
    found += _base64_forms(raw)
    found += [Form("hex", raw.hex()), Form("HEX", raw.hex().upper())]
    found += [
        Form("URL-encoded", urllib.parse.quote(value, safe="")),
        Form("form-encoded", urllib.parse.quote_plus(value)),
        Form("HTML-escaped", html.escape(value)),
        Form("JSON-escaped", json.dumps(value)[1:-1]),
    ]
    if value.isdigit() and 12 <= len(value) <= 19:
        groups = [value[i : i + 4] for i in range(0, len(value), 4)]
        found += [Form("spaced", " ".join(groups)), Form("dashed", "-".join(groups))]
    unique: dict[str, Form] = {}
    for form in found:
        unique.setdefault(form.text, form)
    return list(unique.values())


def _base64_forms(raw: bytes) -> list[Form]:
    """The value's base64 on its own, and the part of it that is the same
    wherever the value sits inside longer base64 (three alignments)."""
    found = []
    for alphabet, encode in (("base64", base64.b64encode), ("base64url", base64.urlsafe_b64encode)):
        found.append(Form(alphabet, encode(raw).decode().rstrip("=")))
        for offset in (1, 2):
            # The value after `offset` other bytes: the groups of three
            # bytes wholly inside it encode the same whatever came before.
            encoded = encode(b"\0" * offset + raw).decode()
            start, end = 4, (offset + len(raw)) // 3 * 4
            if end - start >= MIN_BASE64_FRAGMENT:
                found.append(Form(f"{alphabet} (inside longer data)", encoded[start:end]))
    return found


# What may stand before a short code for it to count: a private field's
# name, then a colon or equals sign (maybe quoted, maybe URL-encoded).
_NAMES = "|".join(sorted(PRIVATE_FIELDS, key=len, reverse=True))
AFTER_PRIVATE_NAME = re.compile(
    rf"(?i)(?<![0-9A-Za-z])(?:{_NAMES})[\"']?\s*(?:[:=]|%3A|%3D)\s*[\"']?$"
)
# Before a whole token: not a letter or digit, nor what joins a number to
# a longer one (a timestamp's fraction, a port, an id's tail).
NOT_BEFORE_TOKEN = re.compile(r"[0-9A-Za-z.:_-]")
NOT_AFTER_TOKEN = re.compile(r"[0-9A-Za-z]")

# (text, start, end) -> whether a found form counts as a sighting.
Check = Callable[[str, int, int], bool]


def _whole_token(text: str, start: int, end: int) -> bool:
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return not NOT_BEFORE_TOKEN.match(before) and not NOT_AFTER_TOKEN.match(after)


def _after_private_name(text: str, start: int, end: int) -> bool:
    after = text[end] if end < len(text) else " "
    before = text[max(0, start - 40) : start]
    return not NOT_AFTER_TOKEN.match(after) and AFTER_PRIVATE_NAME.search(before) is not None


def _check(canary: Canary, form: Form) -> Check | None:
    """None: wherever the form shows, it counts (a short code's base64 or
    hex is long enough to stand out on its own)."""
    if canary.shape is Shape.DISTINCTIVE or len(form.text) >= DISTINCTIVE_LENGTH:
        return None
    return _whole_token if canary.shape is Shape.TOKEN else _after_private_name


def find_leaks(canaries: Iterable[Canary], observations: Iterable[Observation]) -> list[Leak]:
    """One sighting per canary and observation it shows in (in the first of
    its forms found there)."""
    kept = list(observations)
    joined = SEPARATOR.join(o.text for o in kept)
    lengths = (len(o.text) + len(SEPARATOR) for o in kept[:-1])
    starts = list(itertools.accumulate(lengths, initial=0))
    searches = [
        (canary, form, _check(canary, form)) for canary in canaries for form in forms(canary)
    ]
    every_form = [form.text for _, form, _ in searches]
    # Per canary and observation, its first form (as forms() lists them)
    # that counts there, at its first place.
    first: dict[tuple[str, int], tuple[int, int]] = {}
    for search, start in _found(joined, every_form):
        canary, form, check = searches[search]
        if check is not None and not check(joined, start, start + len(form.text)):
            continue
        index = bisect.bisect_right(starts, start) - 1
        seen = first.get((canary.value, index))
        if seen is None or (search, start) < seen:
            first[(canary.value, index)] = (search, start)
    leaks = []
    for (_, index), (search, start) in sorted(first.items(), key=lambda item: item[1]):
        canary, form, _ = searches[search]
        end = start + len(form.text)
        text, offset = kept[index].text, starts[index]
        span = (start - offset, end - offset)
        if form.encoding.startswith("base64"):
            span = _widened(text, span)
        excerpt = _masked_excerpt(text, span, canary, every_form)
        leaks.append(Leak(canary, form.encoding, kept[index].where, excerpt))
    return leaks


def _found(text: str, parts: list[str]) -> Iterator[tuple[int, int]]:
    """(which part, where it starts) for every place any of the parts shows
    in the text, overlapping ones too: one pass over the text for all of
    them (Aho-Corasick). A worker's session ends with a hundred megabytes
    or more and hundreds of canaries, a dozen forms each: on 150 MB and 270
    canaries a search per form took 94-96 s, this takes 2.0-2.2 s."""
    if not text or not parts:
        return
    automaton = ahocorasick.Automaton()
    for number, part in enumerate(parts):
        numbers = automaton.get(part, None)
        if numbers is None:
            automaton.add_word(part, numbers := [])
        numbers.append(number)
    automaton.make_automaton()
    for end, numbers in automaton.iter(text):
        for number in numbers:
            yield number, end - len(parts[number]) + 1


def _widened(text: str, span: tuple[int, int]) -> tuple[int, int]:
    """Base64 next to a value's encoding may still carry a few of its bits."""
    start, end = span
    for _ in range(4):
        if start > 0 and BASE64_CHAR.fullmatch(text[start - 1]):
            start -= 1
        if end < len(text) and BASE64_CHAR.fullmatch(text[end]):
            end += 1
    return start, end


def _masked_excerpt(text: str, span: tuple[int, int], canary: Canary, every_form: list[str]) -> str:
    start, end = span
    before = text[max(0, start - EXCERPT_CHARS) : start]
    after = text[end : end + EXCERPT_CHARS]
    excerpt = f"{before}«{canary.kind}»{after}"
    # Other private values next to this one stay hidden too.
    for form in sorted(every_form, key=len, reverse=True):
        excerpt = excerpt.replace(form, "«private»")
    return excerpt.replace("\n", "\\n")


def report(leaks: list[Leak]) -> str:
    lines = [f"{len(leaks)} sighting(s) of a private value the tests typed:"]
    for leak in leaks:
        lines.append(f"- {leak.canary.kind}, {leak.encoding}, in {leak.where}: …{leak.excerpt}…")
    return "\n".join(lines)


def shows(value: str, text: str, kind: str = "private value") -> bool:
    """Whether `text` holds `value`, or a form of it, as the session's leak
    scan counts one: a one-time code only as a whole token, never as digits
    inside a request id's hex."""
    return bool(find_leaks([Canary(value, kind)], [Observation("text", text)]))
