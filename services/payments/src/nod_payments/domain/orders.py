"""What makes two payments the same order (G8).

Within a task, a payment to the same merchant for the same amount in the
same currency is the same order, whatever its description or order
reference say; so is one with the same order reference (the site's order
number, compared without case, spaces or punctuation), whatever the amount.
The same order is paid at most once unless the person explicitly asks to
pay again (repeat_of_payment_id).

Each rule is a key, and a partial unique index per key holds one live
payment per key and person, so the database, not a select, refuses the
second one. A repeat carries a marker naming the payment it repeats in the
keys it shares with it: one repeat per earlier payment.
"""

import base64
import hashlib
import json
from dataclasses import dataclass
from typing import Protocol

REPEAT_MARKER = "repeat of"


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
    def order_reference(self) -> str | None: ...


class Repeated(OrderFields, Protocol):
    @property
    def id(self) -> str: ...


@dataclass(frozen=True)
class OrderKeys:
    contents: str
    # None without an order reference.
    reference: str | None


def normalised_reference(reference: str | None) -> str:
    """ "A-1001", "a 1001" and "#A1001" are one order number."""
    return "".join(char for char in (reference or "").casefold() if char.isalnum())


def _contents(order: OrderFields) -> list[str]:
    return [order.task_id, order.merchant_origin, str(order.amount_minor), order.currency]


def _reference(order: OrderFields) -> list[str] | None:
    number = normalised_reference(order.order_reference)
    return [order.task_id, order.merchant_origin, number] if number else None


def same_contents(a: OrderFields, b: OrderFields) -> bool:
    return _contents(a) == _contents(b)


def same_reference(a: OrderFields, b: OrderFields) -> bool:
    return _reference(a) is not None and _reference(a) == _reference(b)


def same_order(a: OrderFields, b: OrderFields) -> bool:
    return same_contents(a, b) or same_reference(a, b)


def _digest(kind: str, parts: list[str], repeat_of: str | None) -> str:
    marked = [kind, *parts, *([REPEAT_MARKER, repeat_of] if repeat_of else [])]
    digest = hashlib.sha256(json.dumps(marked).encode()).digest()
    # Not hex: a hex digest can hold a run of 13+ digits, which would look
    # like a card number to anyone scanning the database for one.
    return base64.urlsafe_b64encode(digest).decode()


def order_keys(order: OrderFields, repeated: Repeated | None = None) -> OrderKeys:
    """The keys of `order`; `repeated` is the earlier payment it explicitly
    repeats (the same order: repeats.check_repeat). The person is the other
    column of each unique index."""
    contents_repeat = repeated.id if repeated and same_contents(order, repeated) else None
    reference_repeat = repeated.id if repeated and same_reference(order, repeated) else None
    reference = _reference(order)
    return OrderKeys(
        contents=_digest("contents", _contents(order), contents_repeat),
        reference=_digest("reference", reference, reference_repeat) if reference else None,
    )
