"""Each transition of the state machine as one conditional update (`move`).
A transition that finds its payment elsewhere moves nothing and returns []."""

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from nod_payments.domain import Decision, PaymentOutcome, PaymentRecord, PaymentState
from nod_payments.models import INSTANCE_LEASES, payments
from nod_payments.moves import move
from nod_payments.repository import one_payment

S = PaymentState
NOT_YET_DUE = payments.c.expires_at > sa.func.now()
OVERDUE = payments.c.expires_at <= sa.func.now()


def because(reason: str) -> dict[str, str]:
    """Why a payment ended where it did: on the payment and in its history."""
    return {"reason": reason, "event_reason": reason}


async def decide(conn: AsyncConnection, owner: str, payment_id: str, decision: Decision):
    yes = decision == Decision.YES
    return await move(
        conn,
        *one_payment(owner, payment_id),
        NOT_YET_DUE,
        from_state=S.AWAITING_CONFIRMATION,
        to_state=S.CONFIRMED if yes else S.REFUSED,
        actor=owner,
        **({"confirmed_at": sa.func.now()} if yes else {}),
    )


async def expire_overdue(conn: AsyncConnection, *where, actor: str) -> list[PaymentRecord]:
    return await move(
        conn,
        OVERDUE,
        *where,
        from_state=S.AWAITING_CONFIRMATION,
        to_state=S.EXPIRED,
        actor=actor,
        **because("nobody said yes before it expired"),
    )


async def start(conn: AsyncConnection, owner: str, payment_id: str, instance_id: str, op_id: str):
    return await move(
        conn,
        *one_payment(owner, payment_id),
        from_state=S.CONFIRMED,
        to_state=S.RUNNING,
        actor=owner,
        runner_instance=instance_id,
        card_operation_id=op_id,
        started_at=sa.func.now(),
    )


async def finish(
    conn: AsyncConnection,
    owner: str,
    payment_id: str,
    target: PaymentState,
    *,
    claim_id: str | None,
    reason: str = "",
):
    """RUNNING -> SUBMITTED | UNCERTAIN, for whichever instance asks: the
    caller (tasks) reports what the runner saw."""
    values = {"claim_id": claim_id} if claim_id else {}
    if target == S.UNCERTAIN:
        values |= because(reason)
    return await move(
        conn,
        *one_payment(owner, payment_id),
        from_state=S.RUNNING,
        to_state=target,
        actor=owner,
        **values,
    )


async def record_outcome(
    conn: AsyncConnection, owner: str, payment_id: str, outcome: PaymentOutcome
):
    return await move(
        conn,
        *one_payment(owner, payment_id),
        payments.c.outcome.is_(None),
        from_state=S.SUBMITTED,
        to_state=S.SUBMITTED,
        actor=owner,
        event_reason=f"outcome: {outcome.value}",
        outcome=outcome.value,
    )


async def cancel_for_task(conn: AsyncConnection, owner: str, task_id: str):
    """Awaiting first, then confirmed: a yes that lands between the two
    statements is still caught by the second."""
    cancelled = []
    for state in (S.AWAITING_CONFIRMATION, S.CONFIRMED):
        cancelled += await move(
            conn,
            payments.c.owner == owner,
            payments.c.task_id == task_id,
            from_state=state,
            to_state=S.CANCELLED,
            actor=owner,
            **because("the task was stopped"),
        )
    return cancelled


async def end_running(conn: AsyncConnection, *where, actor: str, reason: str):
    return await move(
        conn, *where, from_state=S.RUNNING, to_state=S.UNCERTAIN, actor=actor, **because(reason)
    )


def run_by(instance_id: str):
    return payments.c.runner_instance == instance_id


def run_by_dead_instances():
    # An instance with no lease row at all counts as dead too.
    return INSTANCE_LEASES.lapsed(payments.c.runner_instance)
