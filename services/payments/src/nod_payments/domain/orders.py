"""A payment request, its checks, and what makes two payments the same order.

The same order is paid at most once (G8). Its key is computed here and a
partial unique index holds one live payment per key, so the database, not a
select, refuses the second one. An explicit new attempt names the earlier
payment, and that marker goes into the key: one repeat per earlier payment.
"""

import base64
import hashlib
import json
import re
from dataclasses import dataclass
from typing import Protocol

from nod_payments.domain.card_numbers import refuse_card_numbers
from nodkit import validation
from nodkit.errors import InvalidArgument

MAX_DESCRIPTION = 500
MAX_ORDER_REFERENCE = 200
MAX_CARD_LABEL = 64
CURRENCY = re.compile(r"[A-Z]{3}")


@dataclass(frozen=True)
class PaymentRequest:
    task_id: str
    merchant_origin: str
    amount_minor: int
    currency: str
    description: str
    card_item_id: str
    card_label: str
    order_reference: str | None = None
    repeat_of_payment_id: str | None = None


class OrderFields(Protocol):
    """What a request and a stored payment have in common (read-only)."""

    @property
    def task_id(self) -> str: ...
    @property
    def merchant_origin(self) -> str: ...
    @property
    def amount_minor(self) -> int: ...
    @property
    def currency(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def order_reference(self) -> str | None: ...


def order_key(order: OrderFields, repeat_of_payment_id: str | None = None) -> str:
    """With the site's order number, the order is (task, merchant, number);
    without one, (task, merchant, amount, currency, description). The person
    is the other column of the unique index."""
    if order.order_reference:
        parts = ["reference", order.task_id, order.merchant_origin, order.order_reference]
    else:
        parts = [
            "contents",
            order.task_id,
            order.merchant_origin,
            str(order.amount_minor),
            order.currency,
            order.description,
        ]
    if repeat_of_payment_id:
        parts += ["repeat of", repeat_of_payment_id]
    digest = hashlib.sha256(json.dumps(parts).encode()).digest()
    # Not hex: a hex digest can hold a run of 13+ digits, which would look
    # like a card number to anyone scanning the database for one.
    return base64.urlsafe_b64encode(digest).decode()


def currency(field: str, value: str) -> str:
    if not CURRENCY.fullmatch(value):
        raise InvalidArgument(field, "must be an ISO 4217 code of 3 upper-case letters, e.g. EUR")
    return value


def card_label(value: str) -> str:
    value = validation.text("card_label", value, max_length=MAX_CARD_LABEL, required=True)
    if sum(char.isdigit() for char in value) > 4:
        raise InvalidArgument("card_label", "must be masked: at most 4 digits, e.g. •••• 4242")
    return value


def check_payment_request(request: PaymentRequest) -> PaymentRequest:
    """Normalises a request, or raises InvalidArgument naming the field."""
    if request.amount_minor <= 0:
        raise InvalidArgument("amount_minor", "must be a positive amount in minor units")
    description = validation.text("description", request.description, max_length=MAX_DESCRIPTION)
    reference = validation.text(
        "order_reference", request.order_reference or "", max_length=MAX_ORDER_REFERENCE
    ).strip()
    return PaymentRequest(
        task_id=validation.printable_id("task_id", request.task_id),
        merchant_origin=validation.origin("merchant_origin", request.merchant_origin),
        amount_minor=request.amount_minor,
        currency=currency("currency", request.currency),
        description=refuse_card_numbers("description", description.strip()),
        card_item_id=validation.uuid_id("card_item_id", request.card_item_id),
        card_label=card_label(request.card_label),
        order_reference=refuse_card_numbers("order_reference", reference) or None,
        repeat_of_payment_id=validation.optional_uuid_id(
            "repeat_of_payment_id", request.repeat_of_payment_id or ""
        ),
    )
