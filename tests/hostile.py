"""Hostile values, and hypothesis strategies that build any request from its
message descriptor out of them: what the RPC and form fuzzing tests send.
Also the checks of what came back: no stack trace, no private value."""

import re
from collections.abc import Callable

from google.protobuf import struct_pb2, timestamp_pb2
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from hypothesis import strategies as st

from nodkit import cards
from nodtest.claims import CANARY_PASSWORD

# A password someone typed into free text (a task's words, a summary): the
# person's own text, stored and shown back to them like any other, so not
# one of the session's canaries. The vault's password (CANARY_PASSWORD) is.
PASSWORD_AS_TEXT = "typed-as-text-Qx7!pw"
CARD_NUMBERS = ("4111111111111111", "4242 4242 4242 4242", "5555-5555-5555-4444")
MEGABYTE = "x" * 1_000_000
HOSTILE_TEXT = (
    "",
    " ",
    "a\x00b",
    MEGABYTE,
    "\u202e\u200b\u2066\x07\x1b[31m\r\n",
    "\ud7ff\ufffe\U0010ffff😀",
    "http://169.254.169.254/latest/meta-data/",
    "http://127.0.0.1:5432/",
    "file:///etc/passwd",
    "javascript:alert(1)",
    "' OR 1=1 --",
    "{{7*7}}${7*7}%s%n",
    "../../../../etc/passwd",
    "<script>alert(1)</script>",
    PASSWORD_AS_TEXT,
    f"my card is {CARD_NUMBERS[0]} and my password {PASSWORD_AS_TEXT}",
    *CARD_NUMBERS,
)
# Values the system must never show back: in a reply or an error.
PRIVATE = (CANARY_PASSWORD,)
TRACES = (b"Traceback", b'File "')

INT32 = (0, 1, -1, 2**31 - 1, -(2**31))
INT64 = (0, 1, -1, 2**63 - 1, -(2**63), 10**15)
UNKNOWN_ENUM_NUMBERS = (99, 12345, -7)
SECONDS = (0, -1, -62_135_596_801, 253_402_300_800, 2**40)

text = st.one_of(st.sampled_from(HOSTILE_TEXT), st.text(max_size=40))


def nested_struct(depth: int) -> struct_pb2.Struct:
    inner: dict = {"leaf": PASSWORD_AS_TEXT}
    for level in range(depth):
        inner = {f"level{level}": inner, "list": [inner] if level % 10 == 0 else []}
    made = struct_pb2.Struct()
    made.update(inner)
    return made


def _struct() -> st.SearchStrategy:
    plain = st.dictionaries(
        text.filter(lambda t: len(t) < 100),
        st.one_of(text, st.floats(allow_nan=False), st.booleans(), st.none()),
        max_size=4,
    )

    def built(values: dict) -> struct_pb2.Struct:
        made = struct_pb2.Struct()
        made.update(values)
        return made

    return st.one_of(plain.map(built), st.sampled_from((3, 40, 90)).map(nested_struct))


def _timestamp() -> st.SearchStrategy:
    return st.builds(
        lambda s, n: timestamp_pb2.Timestamp(seconds=s, nanos=n),
        st.sampled_from(SECONDS),
        st.sampled_from((0, 999_999_999)),
    )


# An id field's name -> the values drawn for it.
Ids = Callable[[str], st.SearchStrategy]


def _scalar(field: FieldDescriptor, ids: Ids) -> st.SearchStrategy:
    kind = field.type
    if kind == FieldDescriptor.TYPE_STRING:
        return ids(field.name) if field.name.endswith("_id") or field.name == "id" else text
    if kind == FieldDescriptor.TYPE_BYTES:
        return st.sampled_from((b"\xff\xfe\xc0\x80", b"\x00", b"x" * 1_000_000))
    if kind == FieldDescriptor.TYPE_BOOL:
        return st.booleans()
    if kind == FieldDescriptor.TYPE_ENUM:
        known = [v.number for v in field.enum_type.values]
        return st.sampled_from(known + list(UNKNOWN_ENUM_NUMBERS))
    if kind in (FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_SINT32):
        return st.sampled_from(INT32)
    if kind in (FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_SINT64):
        return st.sampled_from(INT64)
    if kind in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        return st.floats()
    raise AssertionError(f"no hostile values for {field.full_name} (type {kind})")


def message_strategy(descriptor: Descriptor, ids: Ids, depth: int = 0) -> st.SearchStrategy:
    """Requests of this type with any subset of fields set to hostile values."""
    parts = {}
    for field in descriptor.fields:
        value = _field(field, ids, depth)
        parts[field.name] = st.one_of(st.none(), value)

    def build(values: dict) -> Message:
        from google.protobuf import message_factory

        made = message_factory.GetMessageClass(descriptor)()
        for name, value in values.items():
            if value is None:
                continue
            target = getattr(made, name)
            if isinstance(value, dict):
                target.update(value)
            elif isinstance(value, list):
                target.extend(value)
            elif isinstance(value, Message):
                target.CopyFrom(value)
            else:
                setattr(made, name, value)
        return made

    return st.fixed_dictionaries(parts).map(build)


def _field(field: FieldDescriptor, ids: Ids, depth: int) -> st.SearchStrategy:
    nested = field.message_type
    if nested is not None and nested.GetOptions().map_entry:
        # Keys are names (a path in an error may carry one), so no private
        # value is drawn for a key.
        keys = st.one_of(
            st.sampled_from(("password", "number", "code", "url", "token", "username")),
            text.filter(lambda t: not private_in(t.encode()) and not card_numbers_in([t])),
        )
        values = _scalar(nested.fields_by_name["value"], ids)
        return st.dictionaries(keys.filter(lambda k: len(k) < 1000), values, max_size=3)
    single = _single(field, ids, depth)
    if field.is_repeated:
        return st.lists(single, max_size=3)
    return single


def _single(field: FieldDescriptor, ids: Ids, depth: int) -> st.SearchStrategy:
    nested = field.message_type
    if nested is None:
        return _scalar(field, ids)
    if nested.full_name == "google.protobuf.Struct":
        return _struct()
    if nested.full_name == "google.protobuf.Timestamp":
        return _timestamp()
    if depth >= 2:
        return st.just(None)
    return message_strategy(nested, ids, depth + 1)


def text_fields(message: Message) -> list[str]:
    """Every string in a message, however deep."""
    found: list[str] = []
    for field, value in message.ListFields():
        values = value if field.is_repeated else [value]
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            values = [v for pair in value.items() for v in pair]
        for one in values:
            if isinstance(one, Message):
                found += text_fields(one)
            elif isinstance(one, str):
                found.append(one)
    return found


# Maps a reply carries only masked (VaultItem.fields, Account.credentials),
# but for the names shown as they are (a card's expiry and holder's name).
WRITE_ONLY = {("nod.claims.v1.VaultItem", "fields"), ("nod.approvals.v1.Account", "credentials")}
SHOWN_AS_THEY_ARE = {"expiry", "holder_name"}


def write_only_values(message: Message) -> list[str]:
    found: list[str] = []
    for field, value in message.ListFields():
        if (message.DESCRIPTOR.full_name, field.name) in WRITE_ONLY:
            found += [v for k, v in value.items() if k not in SHOWN_AS_THEY_ARE]
        elif field.message_type is not None and not field.message_type.GetOptions().map_entry:
            for one in value if field.is_repeated else [value]:
                found += write_only_values(one)
    return found


def card_numbers_in(texts: list[str]) -> list[str]:
    return [found for one in texts for found in cards.card_numbers_in(one)]


def trace_in(seen: bytes) -> bool:
    return any(trace in seen for trace in TRACES)


def private_in(seen: bytes) -> list[str]:
    return [value for value in PRIVATE if value.encode() in seen]


def field_names_in(path: str) -> str:
    """`account.settings.url` or `items[2].label` -> `account`/`items`."""
    return re.split(r"[.\[]", path, maxsplit=1)[0]
