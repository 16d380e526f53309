"""The check every service's interceptor runs on every request: no NUL in
any text, no huge map key, the field named and the value never quoted."""

import pytest
from google.protobuf import struct_pb2

from nod.approvals.v1 import approvals_pb2
from nod.claims.v1 import claims_pb2
from nod.payments.v1 import payments_pb2
from nod.tasks.v1 import tasks_pb2
from nodkit.errors import InvalidArgument
from nodkit.request_checks import MAX_KEY, Unreadable, check_request, readable


def struct(values: dict) -> struct_pb2.Struct:
    result = struct_pb2.Struct()
    result.update(values)
    return result


BAD = [
    (tasks_pb2.StartTaskRequest(text="buy\x00it"), "text"),
    (payments_pb2.RecordUncertainRequest(payment_id="p", reason="crashed\x00"), "reason"),
    (
        claims_pb2.PutItemRequest(item=claims_pb2.VaultItem(fields={"username": "ada\x00"})),
        "item.fields.username",
    ),
    (
        claims_pb2.PutItemRequest(item=claims_pb2.VaultItem(fields={"user\x00name": "ada"})),
        "item.fields",
    ),
    (
        claims_pb2.PutItemRequest(item=claims_pb2.VaultItem(fields={"k" * (MAX_KEY + 1): "v"})),
        "item.fields",
    ),
    (
        approvals_pb2.ProposeRequest(parameters=struct({"to": ["a@example.com", "b\x00"]})),
        "parameters.to[1]",
    ),
    (approvals_pb2.ProposeRequest(parameters=struct({"x" * 1_000_000: 1})), "parameters"),
]


@pytest.mark.parametrize(("request_message", "field"), BAD)
def test_a_nul_or_a_huge_key_anywhere_is_refused_naming_the_field(request_message, field):
    with pytest.raises(InvalidArgument) as refused:
        check_request(request_message)

    assert refused.value.field == field
    assert "\x00" not in str(refused.value) and len(str(refused.value)) < 200


def test_ordinary_requests_pass():
    check_request(tasks_pb2.StartTaskRequest(text="buy the blue mug"))
    check_request(approvals_pb2.ProposeRequest(parameters=struct({"to": ["a@example.com"]})))
    check_request(b"raw bytes are not looked into")


def nested(depth: int) -> struct_pb2.Struct:
    inner: dict = {"leaf": "x"}
    for _ in range(depth):
        inner = {"deeper": inner}
    return struct(inner)


def test_a_request_the_parser_refuses_is_a_bad_field_not_an_exception():
    # Deeper than protobuf parses (its limit is 100 levels; each Struct
    # level is two): the service must answer INVALID_ARGUMENT naming the
    # field, not let the parser's exception out as UNKNOWN.
    request = approvals_pb2.ProposeRequest(task_id="t")
    request.parameters.CopyFrom(nested(80))
    sent = request.SerializeToString()
    read = readable(approvals_pb2.ProposeRequest.FromString)
    assert read is not None
    request = read(sent)
    assert request == Unreadable("parameters")
    with pytest.raises(InvalidArgument) as refused:
        check_request(request)
    assert refused.value.field == "parameters"


def test_bytes_that_are_no_message_are_refused_as_the_request():
    read = readable(tasks_pb2.StartTaskRequest.FromString)
    assert read is not None
    request = read(b"\x0a\xff\xff\xff\xff\x0f")
    assert request == Unreadable("")
    with pytest.raises(InvalidArgument) as refused:
        check_request(request)
    assert refused.value.field == "request"


def test_a_readable_request_is_read_as_before():
    read = readable(tasks_pb2.StartTaskRequest.FromString)
    assert read is not None
    sent = tasks_pb2.StartTaskRequest(text="hello", request_id="r")
    assert read(sent.SerializeToString()) == sent


def test_text_that_is_not_utf8_is_a_bad_field():
    # Field 1 (text), length 3, bytes that are no UTF-8.
    read = readable(tasks_pb2.StartTaskRequest.FromString)
    assert read is not None
    request = read(b"\x0a\x03\xff\xfe\xc0")
    assert request == Unreadable("text")
