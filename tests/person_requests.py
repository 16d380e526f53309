"""Requests for the "another person" column: each method's id fields (from
its descriptor), filled with the owner's real objects, and the other values
each method needs to get past its own validation, so that what answers is
the ownership check."""

from collections.abc import Callable

from google.protobuf import struct_pb2
from google.protobuf.descriptor import MethodDescriptor
from google.protobuf.message import Message

from nod.approvals.v1 import approvals_pb2 as approvals
from nod.claims.v1 import claims_pb2 as claims
from nod.payments.v1 import payments_pb2 as payments
from nod.tasks.v1 import tasks_pb2 as tasks
from nodtest.claims import ORIGIN

from .descriptor_calls import is_plain_message, request_class
from .owned_objects import ID_FIELDS, Kind, OwnersObjects, fresh


def id_fields(method: MethodDescriptor) -> list[str]:
    """The request's fields that name something by id: `*_id` and `holder`,
    and the `id` inside a message field (`item.id`)."""
    names = []
    for field in method.input_type.fields:
        nested = field.message_type
        if nested is not None and not field.is_repeated and is_plain_message(nested):
            if "id" in nested.fields_by_name:
                names.append(f"{field.name}.id")
        elif field.name.endswith("_id") or field.name == "holder":
            names.append(field.name)
    return names


def object_fields(method: MethodDescriptor) -> list[tuple[str, Kind]]:
    return [(name, kind) for name in id_fields(method) if isinstance(kind := ID_FIELDS[name], Kind)]


def _parameters() -> struct_pb2.Struct:
    parameters = struct_pb2.Struct()
    parameters.update({"text": "hello"})
    return parameters


Values = Callable[[OwnersObjects, str], dict[str, object]]

# What each method needs besides its ids (given the owner's objects and the
# demo shop's address). Methods not listed need nothing more.
OTHER_VALUES: dict[str, Values] = {
    "ClaimsService/Claim": lambda o, _: {
        "operation_id": fresh("op"), "kind": claims.ENTRY_KIND_CARD,
        "origin": ORIGIN, "holder": o.holder,
    },
    "ClaimsService/MarkSubmitted": lambda o, _: {"holder": o.holder},
    "ClaimsService/MarkUncertain": lambda o, _: {"holder": o.holder, "reason": "checked"},
    "ClaimsService/RecordCheck": lambda o, _: {"check": claims.CHECK_RESULT_WORKED},
    "ClaimsService/FindClaim": lambda o, _: {
        "operation_id": fresh("op"), "kind": claims.ENTRY_KIND_CARD,
    },
    # Another runner's lease: releasing it must not touch the owner's claims.
    "ClaimsService/RenewHolder": lambda o, _: {"holder": fresh("runner")},
    "ClaimsService/ReleaseHolder": lambda o, _: {"holder": fresh("runner"), "reason": "test"},
    "VaultService/PutItem": lambda o, _: {
        "item": claims.VaultItem(
            kind=claims.ENTRY_KIND_SAVED_LOGIN, label="replaced", origin=ORIGIN,
            fields={"username": "u@example.com", "password": "pw-replaced-1"},
        )
    },
    "VaultService/PutPrivateEntry": lambda o, _: {
        "kind": claims.ENTRY_KIND_ONE_TIME_CODE, "fields": {"code": "123456"}, "origin": ORIGIN,
    },
    "ClaimsService/BindCardEntry": lambda o, _: {
        "operation_id": fresh("op"), "merchant_origin": ORIGIN,
    },
    "ApprovalsService/ConnectAccount": lambda o, _: {
        "account": approvals.Account(
            app="webhook", label="replaced", settings={"url": "http://127.0.0.1:9/other"}
        )
    },
    "ApprovalsService/Propose": lambda o, _: {
        "action": "post", "parameters": _parameters(), "summary": "Post",
        "request_id": fresh("propose"),
    },
    "ApprovalsService/Decide": lambda o, _: {"decision": approvals.DECISION_NO},
    "ApprovalsService/CancelForTask": lambda o, _: {"reason": "test"},
    "PaymentsService/CreatePayment": lambda o, _: {
        "merchant_origin": ORIGIN, "amount_minor": 500, "currency": "EUR",
        "description": "Lamp", "card_label": "•••• 1111",
        "order_reference": fresh("order"), "request_id": fresh("pay"),
    },
    "PaymentsService/ConfirmPayment": lambda o, _: {"decision": payments.DECISION_NO},
    "PaymentsService/RecordUncertain": lambda o, _: {"reason": "test"},
    "PaymentsService/RecordOutcome": lambda o, _: {"outcome": payments.PAYMENT_OUTCOME_PAID},
    "PaymentsService/CancelForTask": lambda o, _: {"reason": "test"},
    "PaymentsService/SetLimits": lambda o, _: {
        "max_single_minor": 1_000_000, "max_daily_minor": 10_000_000, "currency": "EUR",
    },
    "BrowserService/Navigate": lambda o, shop: {"url": shop},
    "BrowserService/Click": lambda o, _: {"target": "e1"},
    "BrowserService/TypeText": lambda o, _: {"target": "e1", "text": "hello"},
    "BrowserService/SelectOption": lambda o, _: {"target": "e1", "option": "a"},
    "BrowserService/SetChecked": lambda o, _: {"target": "e1", "checked": True},
    "BrowserService/PressKey": lambda o, _: {"target": "e1", "key": "Enter"},
    "BrowserService/Scroll": lambda o, _: {"pages": 1},
    "BrowserService/SwitchPage": lambda o, _: {"page_id": "p1"},
    "BrowserService/EnterPrivate": lambda o, _: {
        "operation_id": fresh("op"), "kind": claims.ENTRY_KIND_CARD, "submit": "e1",
    },
    # The owner's look goes to the shop; another person's finds no session.
    "BrowserService/Look": lambda o, shop: {"url": shop},
    "TasksService/StartTask": lambda o, _: {"text": "Water the plants", "request_id": fresh("t")},
    "TasksService/Continue": lambda o, _: {"text": "Go on"},
    "TasksService/AnswerQuestion": lambda o, _: {"text": "Yes"},
    "TasksService/ResolveUncertain": lambda o, _: {
        "step": 1, "resolution": tasks.RESOLUTION_HAPPENED, "note": "checked",
    },
    # The waiting task's first step opened the shop's page: its picture was kept.
    "TasksService/GetStepScreenshot": lambda o, _: {"task_id": o.the_waiting_task(), "step": 1},
}  # fmt: skip


# Where a request's item must be a card: it names a companion entry (the
# card's security code) beside it, or binds where a card may go.
CARD_ITEMS = {
    "ClaimsService/Claim",
    "ClaimsService/FindClaim",
    "ClaimsService/BindCardEntry",
    "BrowserService/EnterPrivate",
}


def short_name(method: MethodDescriptor) -> str:
    return f"{method.containing_service.name}/{method.name}"


async def owners_request(method: MethodDescriptor, owners: OwnersObjects, shop: str) -> Message:
    """The request naming the owner's objects (made now, for real)."""
    values = OTHER_VALUES.get(short_name(method), lambda o, _: {})(owners, shop)
    request = request_class(method)(**values)
    # The wait first: it decides which task the request names.
    for name, kind in sorted(object_fields(method), key=lambda f: f[1] is not Kind.WAIT):
        if kind is Kind.ITEM and short_name(method) in CARD_ITEMS:
            kind = Kind.CARD
        object_id = await owners.get(kind)
        if "." in name:
            outer, inner = name.split(".")
            setattr(getattr(request, outer), inner, object_id)
        else:
            setattr(request, name, object_id)
    return request
