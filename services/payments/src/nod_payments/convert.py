"""Domain <-> protobuf: enum tables and the Payment message."""

from nod.payments.v1 import payments_pb2 as pb
from nod_payments.domain import Decision, PaymentOutcome, PaymentRecord, PaymentState
from nod_payments.limits import Limits
from nodkit.timestamps import to_proto

STATES = {
    pb.PAYMENT_STATE_AWAITING_CONFIRMATION: PaymentState.AWAITING_CONFIRMATION,
    pb.PAYMENT_STATE_CONFIRMED: PaymentState.CONFIRMED,
    pb.PAYMENT_STATE_RUNNING: PaymentState.RUNNING,
    pb.PAYMENT_STATE_SUBMITTED: PaymentState.SUBMITTED,
    pb.PAYMENT_STATE_UNCERTAIN: PaymentState.UNCERTAIN,
    pb.PAYMENT_STATE_REFUSED: PaymentState.REFUSED,
    pb.PAYMENT_STATE_CANCELLED: PaymentState.CANCELLED,
    pb.PAYMENT_STATE_EXPIRED: PaymentState.EXPIRED,
}
OUTCOMES = {
    pb.PAYMENT_OUTCOME_PAID: PaymentOutcome.PAID,
    pb.PAYMENT_OUTCOME_DECLINED: PaymentOutcome.DECLINED,
    pb.PAYMENT_OUTCOME_UNKNOWN: PaymentOutcome.UNKNOWN,
}
DECISIONS = {pb.DECISION_YES: Decision.YES, pb.DECISION_NO: Decision.NO}
STATE_TO_PB = {v: k for k, v in STATES.items()}
OUTCOME_TO_PB = {v: k for k, v in OUTCOMES.items()}


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
        state=STATE_TO_PB[record.state],
        outcome=OUTCOME_TO_PB.get(record.outcome, pb.PAYMENT_OUTCOME_UNSPECIFIED),
        card_operation_id=record.card_operation_id or "",
        claim_id=record.claim_id or "",
        reason=record.reason,
        created_at=to_proto(record.created_at),
        updated_at=to_proto(record.updated_at),
        expires_at=to_proto(record.expires_at),
        confirmed_at=to_proto(record.confirmed_at),
        started_at=to_proto(record.started_at),
    )


def event_to_pb(row) -> pb.PaymentEvent:
    return pb.PaymentEvent(
        payment_id=str(row.payment_id),
        from_state=STATE_TO_PB[PaymentState(row.from_state)] if row.from_state else 0,
        to_state=STATE_TO_PB[PaymentState(row.to_state)],
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
