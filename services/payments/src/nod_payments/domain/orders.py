"""What makes two payments the same order (G8).

The same order is paid at most once. Its key is computed here and a partial
unique index holds one live payment per key, so the database, not a select,
refuses the second one. An explicit new attempt names the earlier payment,
and that marker goes into the key: one repeat per earlier payment.
"""

import base64
import hashlib
import json
from typing import Protocol


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
