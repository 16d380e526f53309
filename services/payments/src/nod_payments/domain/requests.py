"""A payment request: its checks, and what a resend of it answers (G5).

Each request carries the caller's request_id. A unique key on (person,
request_id) makes a resend find the payment the first one made; the same id
with other content is refused, so an id can't be reused for another payment.
"""

import re
from dataclasses import dataclass

from nod_payments.domain.card_numbers import refuse_card_numbers
from nod_payments.domain.payments import PaymentRecord
from nodkit import validation
from nodkit.errors import AlreadyExists, InvalidArgument

MAX_DESCRIPTION = 500
MAX_ORDER_REFERENCE = 200
MAX_CARD_LABEL = 64
MAX_HOSTED_PAYMENT_ORIGINS = 10
CURRENCY = re.compile(r"[A-Z]{3}")


@dataclass(frozen=True)
class PaymentRequest:
    request_id: str
    task_id: str
    merchant_origin: str
    amount_minor: int
    currency: str
    description: str
    card_item_id: str
    card_label: str
    order_reference: str | None = None
    repeat_of_payment_id: str | None = None
    hosted_payment_origins: tuple[str, ...] = ()


def currency(field: str, value: str) -> str:
    if not CURRENCY.fullmatch(value):
        raise InvalidArgument(field, "must be an ISO 4217 code of 3 upper-case letters, e.g. EUR")
    return value


def card_label(value: str) -> str:
    value = validation.text("card_label", value, max_length=MAX_CARD_LABEL, required=True)
    if sum(char.isdigit() for char in value) > 4:
        raise InvalidArgument("card_label", "must be masked: at most 4 digits, e.g. •••• 4242")
    return value


def hosted_payment_origins(merchant_origin: str, values: tuple[str, ...]) -> tuple[str, ...]:
    """Where else the card may be entered, as a set: each a web origin,
    sorted, once, and never the merchant itself (which is always allowed)."""
    if len(values) > MAX_HOSTED_PAYMENT_ORIGINS:
        raise InvalidArgument(
            "hosted_payment_origins", f"must list at most {MAX_HOSTED_PAYMENT_ORIGINS} origins"
        )
    checked = {
        validation.origin(f"hosted_payment_origins[{n}]", value) for n, value in enumerate(values)
    }
    return tuple(sorted(checked - {merchant_origin}))


def check_payment_request(request: PaymentRequest) -> PaymentRequest:
    """Normalises a request, or raises InvalidArgument naming the field."""
    if request.amount_minor <= 0:
        raise InvalidArgument("amount_minor", "must be a positive amount in minor units")
    merchant_origin = validation.origin("merchant_origin", request.merchant_origin)
    description = validation.text("description", request.description, max_length=MAX_DESCRIPTION)
    reference = validation.text(
        "order_reference", request.order_reference or "", max_length=MAX_ORDER_REFERENCE
    ).strip()
    return PaymentRequest(
        # An id is checked by the shared rule alone (in printable_id), which
        # knows a UUID's hex from a card number; a bare run of 13 digits in
        # `uuid4().hex` is common (about one id in 25).
        request_id=validation.printable_id("request_id", request.request_id),
        task_id=validation.printable_id("task_id", request.task_id),
        merchant_origin=merchant_origin,
        amount_minor=request.amount_minor,
        currency=currency("currency", request.currency),
        description=refuse_card_numbers("description", description.strip()),
        card_item_id=validation.uuid_id("card_item_id", request.card_item_id),
        card_label=card_label(request.card_label),
        order_reference=refuse_card_numbers("order_reference", reference) or None,
        repeat_of_payment_id=validation.optional_uuid_id(
            "repeat_of_payment_id", request.repeat_of_payment_id or ""
        ),
        hosted_payment_origins=hosted_payment_origins(
            merchant_origin, request.hosted_payment_origins
        ),
    )


def _content(request: PaymentRequest | PaymentRecord) -> tuple:
    return (
        request.task_id,
        request.merchant_origin,
        request.amount_minor,
        request.currency,
        request.description,
        request.card_item_id,
        request.card_label,
        request.order_reference,
        request.repeat_of_payment_id,
        request.hosted_payment_origins,
    )


def answer_resend(first: PaymentRecord, request: PaymentRequest) -> PaymentRecord:
    """`first` was made by an earlier request with this request_id. The same
    (normalised) content is a resend and gets the first answer, whatever
    happened to the payment since; anything else reuses the id."""
    if _content(first) == _content(request):
        return first
    raise AlreadyExists(
        "request_id was already used for another payment request",
        reason="REQUEST_ID_REUSED",
        payment_id=first.id,
    )
