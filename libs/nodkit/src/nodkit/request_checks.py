"""What every request to every service is checked for before its handler
runs (the interceptor calls check_request): no NUL character in any text and
no map key longer than MAX_KEY, anywhere in the message. A NUL would reach
PostgreSQL (which refuses it in text) or a page; a huge key would be copied
into an error. The error names the field, never quotes the value.

A request the protobuf parser refuses (a Struct nested deeper than it
reads, text that isn't UTF-8, bytes that are no message) is one too:
`readable` hands the handler an Unreadable in its place, and check_request
answers INVALID_ARGUMENT naming the field it is in. Left to gRPC, the
parser's exception would reach the caller as UNKNOWN, in its own words."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from google.protobuf import message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import DecodeError, Message

from nodkit.errors import InvalidArgument

MAX_KEY = 256
_STRING = FieldDescriptor.TYPE_STRING
_MESSAGE = FieldDescriptor.TYPE_MESSAGE
# google.protobuf.Struct and Value are walked by their keys, so the field is
# named as the caller wrote it: parameters.to[0], not parameters.fields["to"]...
_STRUCT = "google.protobuf.Struct"
_VALUE = "google.protobuf.Value"
_LIST_VALUE = "google.protobuf.ListValue"


@dataclass(frozen=True)
class Unreadable:
    """In place of a request the parser refused: the top-level field it
    refused, when one can be told apart."""

    field: str


def readable(deserializer: Callable[[bytes], Any] | None) -> Callable[[bytes], Any] | None:
    """The method's request parser, answering Unreadable instead of raising."""
    if deserializer is None:
        return None
    message_class = getattr(deserializer, "__self__", None)

    def read(data: bytes) -> Any:
        try:
            return deserializer(data)
        except DecodeError:
            descriptor = getattr(message_class, "DESCRIPTOR", None)
            return Unreadable(_unreadable_field(descriptor, data) if descriptor else "")

    return read


def check_request(request: object) -> None:
    if isinstance(request, Unreadable):
        raise InvalidArgument(
            request.field or "request",
            "could not be read: nested too deeply, or not a well-formed message",
        )
    if isinstance(request, Message):  # (a raw-bytes method has nothing to check)
        _check_message(request, "")


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value, shift = 0, 0
    while at < len(data):
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at, shift = at + 1, shift + 7
        if not byte & 0x80:
            return value, at
    raise DecodeError("truncated varint")


def _reads(field: FieldDescriptor, chunk: bytes) -> bool:
    """Whether one field's bytes parse: a message on its own, a text as UTF-8."""
    try:
        if field.message_type is not None:
            message_factory.GetMessageClass(field.message_type).FromString(chunk)
        elif field.type == _STRING:
            chunk.decode("utf-8")
    except (DecodeError, UnicodeDecodeError):
        return False
    return True


def _unreadable_field(descriptor: Descriptor, data: bytes) -> str:
    """The first top-level field whose bytes don't parse on their own (a
    message too deep, a text that isn't UTF-8); "" when none can be singled
    out (the request itself is broken)."""
    at = 0
    try:
        while at < len(data):
            key, at = _varint(data, at)
            number, wire_type = key >> 3, key & 7
            if wire_type == 0:
                _, at = _varint(data, at)
            elif wire_type in (1, 5):
                at += 8 if wire_type == 1 else 4
            elif wire_type == 2:
                length, at = _varint(data, at)
                chunk, at = data[at : at + length], at + length
                field = descriptor.fields_by_number.get(number)
                if field is not None and not _reads(field, chunk):
                    return field.name
            else:
                return ""
    except DecodeError:
        return ""
    return ""


def _check_message(message: Message, where: str) -> None:
    name = message.DESCRIPTOR.full_name
    if name == _STRUCT:
        _check_map(message.fields, where, _check_struct_value)  # type: ignore[attr-defined]
        return
    if name == _VALUE:
        _check_struct_value(message, where)
        return
    if name == _LIST_VALUE:
        for index, item in enumerate(message.values):  # type: ignore[attr-defined]
            _check_struct_value(item, f"{where}[{index}]")
        return
    for field, value in message.ListFields():
        path = f"{where}.{field.name}" if where else field.name
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            value_field = field.message_type.fields_by_name["value"]
            _check_map(value, path, lambda item, at, f=value_field: _check_value(f, item, at))
        elif field.is_repeated:
            for index, item in enumerate(value):
                _check_value(field, item, f"{path}[{index}]")
        else:
            _check_value(field, value, path)


def _check_map(entries: Any, path: str, check_item: Any) -> None:
    for key, item in entries.items():
        if isinstance(key, str):
            if len(key) > MAX_KEY:
                raise InvalidArgument(path, f"has a key longer than {MAX_KEY} characters")
            if "\x00" in key:
                raise InvalidArgument(path, "has a key with a NUL character")
        check_item(item, f"{path}.{key}")


def _check_value(field: FieldDescriptor, value: Any, path: str) -> None:
    if field.type == _STRING:
        _check_text(value, path)
    elif field.type == _MESSAGE:
        _check_message(value, path)


def _check_struct_value(value: Any, path: str) -> None:
    kind = value.WhichOneof("kind")
    if kind == "string_value":
        _check_text(value.string_value, path)
    elif kind == "struct_value":
        _check_message(value.struct_value, path)
    elif kind == "list_value":
        _check_message(value.list_value, path)


def _check_text(value: str, path: str) -> None:
    if "\x00" in value:
        raise InvalidArgument(path, "must not contain NUL characters")
