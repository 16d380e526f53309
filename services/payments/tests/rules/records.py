"""Payments and requests for the rules tests, as plain values."""

import dataclasses
from datetime import UTC, datetime, timedelta

from nod_payments.domain.payments import PaymentRecord, PaymentState, card_operation_id
from nod_payments.domain.requests import PaymentRequest

SHOP = "https://shop.example"
CARD_ITEM = "6f1c1e0a-3b8e-4f55-9d0c-2a7a51f0b001"
CARD_LABEL = "•••• 4242"
NOW = datetime(2025, 1, 2, 12, 0, tzinfo=UTC)


def request(**changes) -> PaymentRequest:
    values = {
        "request_id": "request-1",
        "task_id": "task-1",
        "merchant_origin": SHOP,
        "amount_minor": 2599,
        "currency": "EUR",
        "description": "1 × blue teapot",
        "card_item_id": CARD_ITEM,
        "card_label": CARD_LABEL,
        **changes,
    }
    return PaymentRequest(**values)


def payment(state: PaymentState = PaymentState.AWAITING_CONFIRMATION, **changes) -> PaymentRecord:
    """A payment made from request(), in `state`; any field changed by name."""
    made = request()
    payment_id = changes.pop("id", "a0e1f5c2-7d7b-4d8e-8f43-1c9a2b3c4d5e")
    record = PaymentRecord(
        id=payment_id,
        task_id=made.task_id,
        merchant_origin=made.merchant_origin,
        amount_minor=made.amount_minor,
        currency=made.currency,
        description=made.description,
        card_item_id=made.card_item_id,
        card_label=made.card_label,
        order_reference=made.order_reference,
        repeat_of_payment_id=made.repeat_of_payment_id,
        state=state,
        outcome=None,
        card_operation_id=card_operation_id(payment_id),
        claim_id=None,
        runner_instance=None,
        reason="",
        created_at=NOW,
        updated_at=NOW,
        expires_at=NOW + timedelta(minutes=15),
        confirmed_at=None,
        started_at=None,
        request_id=made.request_id,
        hosted_payment_origins=made.hosted_payment_origins,
    )
    return dataclasses.replace(record, **changes)
