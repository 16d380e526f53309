"""What every request to every service is checked for before its handler
runs (the interceptor calls check_request): no NUL character in any text and
no map key longer than MAX_KEY, anywhere in the message. A NUL would reach
PostgreSQL (which refuses it in text) or a page; a huge key would be copied
into an error. The error names the field, never quotes the value."""

from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from nodkit.errors import InvalidArgument

MAX_KEY = 256
_STRING = FieldDescriptor.TYPE_STRING
_MESSAGE = FieldDescriptor.TYPE_MESSAGE
# google.protobuf.Struct and Value are walked by their keys, so the field is
# named as the caller wrote it: parameters.to[0], not parameters.fields["to"]...
_STRUCT = "google.protobuf.Struct"
_VALUE = "google.protobuf.Value"
_LIST_VALUE = "google.protobuf.ListValue"


def check_request(request: object) -> None:
    if isinstance(request, Message):  # (a raw-bytes method has nothing to check)
        _check_message(request, "")


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
