"""The check every service's interceptor runs on every request: no NUL in
any text, no huge map key, the field named and the value never quoted."""

import pytest
from google.protobuf import struct_pb2

from nod.approvals.v1 import approvals_pb2
from nod.claims.v1 import claims_pb2
from nod.payments.v1 import payments_pb2
from nod.tasks.v1 import tasks_pb2
from nodkit.errors import InvalidArgument
from nodkit.request_checks import MAX_KEY, check_request


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
