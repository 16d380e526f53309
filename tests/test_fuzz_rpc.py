"""Hostile requests to every method of every service of the running system,
built by hypothesis from each request's descriptor (tests/hostile.py): NUL
bytes, megabyte strings, unicode controls, extreme and negative numbers,
unknown enum numbers, internal URLs, card numbers and the canary password in
free text, deeply nested Structs; ids drawn from the caller's own real
objects as well as from the same hostile values.

With a valid credential and person, whatever the request: never INTERNAL or
UNKNOWN, no stack trace and no private value in a status or a reply, no card
number in a reply, and an INVALID_ARGUMENT names a field of the request."""

import asyncio

import grpc
import pytest
from google.protobuf import message_factory
from google.protobuf.descriptor import MethodDescriptor
from google.rpc import error_details_pb2, status_pb2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nod.claims.v1 import claims_pb2
from nod.tasks.v1 import tasks_pb2
from nodtest.make_run import MakeRun

from .descriptor_calls import every_method, path_of
from .hostile import (
    HOSTILE_TEXT,
    card_numbers_in,
    field_names_in,
    message_strategy,
    private_in,
    text_fields,
    trace_in,
    write_only_values,
)
from .owned_objects import ID_FIELDS, Kind, OwnersObjects, Stubs, fresh

NEVER = {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN}
EXAMPLES_PER_METHOD = 5
# Browser calls may wait on a page (an address that never answers): the
# call's deadline is then the answer, which is allowed.
CALL_TIMEOUT_S = 15


async def _own_objects(run: MakeRun, person: str) -> dict[Kind, str]:
    """The fuzzing person's real objects, so some requests get past the
    ownership checks to the code behind them."""
    stubs = Stubs(run)
    meta = run.meta(person)
    holder = fresh("runner")
    await stubs.claims.RenewHolder(claims_pb2.RenewHolderRequest(holder=holder), metadata=meta)
    owners = OwnersObjects(stubs, meta, tasks_pb2.Task(), holder)
    for kind in (
        Kind.TASK,
        Kind.ITEM,
        Kind.CARD,
        Kind.CLAIM,
        Kind.APPROVAL,
        Kind.PAYMENT,
        Kind.SESSION,
    ):
        await owners.get(kind)
    return owners.made


@pytest.fixture(scope="module")
def fuzzing(made_run):
    person = fresh("fuzz")
    ids = asyncio.run(_own_objects(made_run, person))
    channels = {
        name: grpc.insecure_channel(made_run.addresses[name]) for name in made_run.addresses
    }
    yield made_run.meta(person), ids, channels
    for channel in channels.values():
        channel.close()


def call(channel: grpc.Channel, method: MethodDescriptor, request, metadata):
    """(code, the error if any, the reply (a stream's first) if any). A
    request given as bytes is sent as it is."""
    response_class = message_factory.GetMessageClass(method.output_type)
    as_sent = isinstance(request, bytes)
    kwargs = {
        "request_serializer": bytes if as_sent else type(request).SerializeToString,
        "response_deserializer": response_class.FromString,
    }
    try:
        if method.server_streaming:
            stream = channel.unary_stream(path_of(method), **kwargs)(
                request, metadata=metadata, timeout=CALL_TIMEOUT_S
            )
            reply = next(stream, None)
            stream.cancel()
        else:
            reply = channel.unary_unary(path_of(method), **kwargs)(
                request, metadata=metadata, timeout=CALL_TIMEOUT_S
            )
    except grpc.RpcError as error:
        return error.code(), error, None
    return grpc.StatusCode.OK, None, reply


def rich_status(error) -> status_pb2.Status:
    for key, value in error.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            return status_pb2.Status.FromString(value)
    return status_pb2.Status()


def named_fields(status: status_pb2.Status) -> list[str]:
    names = []
    for detail in status.details:
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            names += [violation.field for violation in bad.field_violations]
    return names


def check(method: MethodDescriptor, code, error, reply) -> None:
    """What the caller saw of one hostile request."""
    name = path_of(method)
    assert code not in NEVER, (name, code, error and error.details())
    if error is not None:
        status = rich_status(error)
        seen = (error.details() or "").encode() + status.SerializeToString()
        assert not trace_in(seen), (name, error.details())
        assert not private_in(seen), (name, error.details())
        assert not card_numbers_in([error.details() or "", status.message]), name
        if code == grpc.StatusCode.INVALID_ARGUMENT:
            fields = named_fields(status)
            known = set(method.input_type.fields_by_name)
            assert any(field_names_in(f) in known for f in fields), (name, fields, error.details())
    if reply is not None:
        texts = text_fields(reply)
        seen = reply.SerializeToString()
        assert not trace_in(seen), name
        assert not card_numbers_in(texts), (name, card_numbers_in(texts))
        assert not private_in("".join(write_only_values(reply)).encode()), name


METHODS = every_method()


@pytest.mark.parametrize(
    ("service", "method"), METHODS, ids=[path_of(m).rsplit(".", 1)[-1] for _, m in METHODS]
)
@settings(
    max_examples=EXAMPLES_PER_METHOD,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
@given(data=st.data())
def test_hostile_requests_never_break_a_method(fuzzing, service, method, data):
    meta, own, channels = fuzzing

    def ids(field_name: str) -> st.SearchStrategy:
        """The person's own object of the kind the field names, or not."""
        kind = ID_FIELDS.get(field_name)
        mine = [own[kind]] if isinstance(kind, Kind) and kind in own else list(own.values())
        return st.one_of(st.sampled_from(mine), st.sampled_from(HOSTILE_TEXT))

    request = data.draw(message_strategy(method.input_type, ids), label="request")
    code, error, reply = call(channels[service], method, request, meta)
    check(method, code, error, reply)


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


NOT_UTF8 = b"\xff\xfe\xc0\x80"
TEXT_FIELDS = [
    (service, method, field)
    for service, method in METHODS
    for field in method.input_type.fields
    if field.type == field.TYPE_STRING and not field.is_repeated
]


def test_text_that_is_not_utf8_is_refused_naming_its_field(fuzzing):
    # Only the wire can carry it (protobuf won't build such a message): the
    # field's tag, its length, and bytes that are no UTF-8.
    meta, _own, channels = fuzzing
    for service, method, field in TEXT_FIELDS:
        raw = _varint(field.number << 3 | 2) + _varint(len(NOT_UTF8)) + NOT_UTF8
        code, error, _reply = call(channels[service], method, raw, meta)
        where = (path_of(method), field.name)
        assert code == grpc.StatusCode.INVALID_ARGUMENT, (where, code)
        assert named_fields(rich_status(error)) == [field.name], where
        assert not trace_in((error.details() or "").encode()), where
