"""Payments, their history and limits as proto messages, and the enums both ways."""

import sqlalchemy as sa

from nod.payments.v1 import payments_pb2 as pb
from nod_payments.domain.limits import Limits
from nod_payments.domain.payments import Decision, PaymentOutcome, PaymentRecord, PaymentState
from nodkit.enums import ProtoEnum
from nodkit.timestamps import to_proto

STATES = ProtoEnum(pb.PaymentState, PaymentState)
OUTCOMES = ProtoEnum(pb.PaymentOutcome, PaymentOutcome)
DECISIONS = ProtoEnum(pb.Decision, Decision)


def payment_to_pb(record: PaymentRecord) -> pb.Payment:
    return pb.Payment(
        id=record.id,
        task_id=record.task_id,
        merchant_origin=record.merchant_origin,
        amount_minor=record.amount_minor,
        currency=record.currency,
        description=record.description,
        card_item_id=record.card_item_id,
        card_label=record.card_label,
        order_reference=record.order_reference or "",
        repeat_of_payment_id=record.repeat_of_payment_id or "",
        state=STATES.proto(record.state),
        outcome=OUTCOMES.proto(record.outcome),
        card_operation_id=record.card_operation_id or "",
        claim_id=record.claim_id or "",
        reason=record.reason,
        created_at=to_proto(record.created_at),
        updated_at=to_proto(record.updated_at),
        expires_at=to_proto(record.expires_at),
        confirmed_at=to_proto(record.confirmed_at),
        started_at=to_proto(record.started_at),
        request_id=record.request_id or "",
        hosted_payment_origins=record.hosted_payment_origins,
    )


def event_to_pb(row: sa.Row) -> pb.PaymentEvent:
    return pb.PaymentEvent(
        payment_id=str(row.payment_id),
        from_state=STATES.proto(PaymentState(row.from_state) if row.from_state else None),
        to_state=STATES.proto(PaymentState(row.to_state)),
        actor=row.actor,
        reason=row.reason,
        at=to_proto(row.at),
    )


def limits_to_pb(limits: Limits | None) -> pb.PaymentLimits | None:
    if limits is None:
        return None
    return pb.PaymentLimits(
        max_single_minor=limits.max_single_minor or 0,
        max_daily_minor=limits.max_daily_minor or 0,
        currency=limits.currency,
        updated_at=to_proto(limits.updated_at),
    )
