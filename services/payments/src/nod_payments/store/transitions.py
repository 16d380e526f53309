"""The transitions of the payment state machine, each one conditional update
and its history row in one statement (nodkit.history.move). A transition
that finds its payment elsewhere moves nothing and returns []; what that
means is the domain's to say (domain/refusals.py)."""

from collections.abc import Mapping
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from nod_payments.domain.payments import Decision, PaymentOutcome, PaymentRecord, PaymentState
from nod_payments.store.models import INSTANCE_LEASES, PAYMENT_HISTORY, payments
from nod_payments.store.payments import one_payment, to_record
from nodkit import history

S = PaymentState
NOT_YET_DUE = payments.c.expires_at > sa.func.now()
OVERDUE = payments.c.expires_at <= sa.func.now()


async def _move(
    conn: AsyncConnection,
    *where: sa.ColumnElement[bool],
    from_state: PaymentState,
    to_state: PaymentState,
    actor: str,
    reason: str = "",
    values: Mapping[str, Any] | None = None,
) -> list[PaymentRecord]:
    moved = await history.move(
        conn,
        payments,
        PAYMENT_HISTORY,
        *where,
        from_state=from_state,
        to_state=to_state,
        actor=actor,
        reason=reason,
        values=values,
    )
    return [to_record(row) for row in moved]


async def _end(
    conn: AsyncConnection,
    *where: sa.ColumnElement[bool],
    from_state: PaymentState,
    to_state: PaymentState,
    actor: str,
    reason: str,
) -> list[PaymentRecord]:
    """A move that says why the payment ended there, on the payment and in its history."""
    return await _move(
        conn,
        *where,
        from_state=from_state,
        to_state=to_state,
        actor=actor,
        reason=reason,
        values={"reason": reason},
    )


async def decide(
    conn: AsyncConnection, owner: str, payment_id: str, decision: Decision
) -> list[PaymentRecord]:
    yes = decision == Decision.YES
    return await _move(
        conn,
        *one_payment(owner, payment_id),
        NOT_YET_DUE,
        from_state=S.AWAITING_CONFIRMATION,
        to_state=S.CONFIRMED if yes else S.REFUSED,
        actor=owner,
        values={"confirmed_at": sa.func.now()} if yes else None,
    )


async def expire_overdue(
    conn: AsyncConnection, *where: sa.ColumnElement[bool], actor: str
) -> list[PaymentRecord]:
    return await _end(
        conn,
        OVERDUE,
        *where,
        from_state=S.AWAITING_CONFIRMATION,
        to_state=S.EXPIRED,
        actor=actor,
        reason="nobody said yes before it expired",
    )


async def start(
    conn: AsyncConnection, owner: str, payment_id: str, instance_id: str, operation_id: str
) -> list[PaymentRecord]:
    return await _move(
        conn,
        *one_payment(owner, payment_id),
        from_state=S.CONFIRMED,
        to_state=S.RUNNING,
        actor=owner,
        values={
            "runner_instance": instance_id,
            "card_operation_id": operation_id,
            "started_at": sa.func.now(),
        },
    )


async def finish(
    conn: AsyncConnection,
    owner: str,
    payment_id: str,
    target: PaymentState,
    *,
    claim_id: str | None,
    reason: str = "",
) -> list[PaymentRecord]:
    """RUNNING -> SUBMITTED | UNCERTAIN, for whichever instance asks: the
    caller (tasks) reports what the runner saw."""
    values: dict[str, Any] = {"claim_id": claim_id} if claim_id else {}
    if target == S.UNCERTAIN:
        values["reason"] = reason
    return await _move(
        conn,
        *one_payment(owner, payment_id),
        from_state=S.RUNNING,
        to_state=target,
        actor=owner,
        reason=reason if target == S.UNCERTAIN else "",
        values=values,
    )


async def record_outcome(
    conn: AsyncConnection, owner: str, payment_id: str, outcome: PaymentOutcome
) -> list[PaymentRecord]:
    """Beside SUBMITTED, once."""
    return await _move(
        conn,
        *one_payment(owner, payment_id),
        payments.c.outcome.is_(None),
        from_state=S.SUBMITTED,
        to_state=S.SUBMITTED,
        actor=owner,
        reason=f"outcome: {outcome.value}",
        values={"outcome": outcome.value},
    )


async def cancel_for_task(conn: AsyncConnection, owner: str, task_id: str) -> list[PaymentRecord]:
    """Awaiting first, then confirmed: a yes that lands between the two
    statements is still caught by the second."""
    cancelled = []
    for state in (S.AWAITING_CONFIRMATION, S.CONFIRMED):
        cancelled += await _end(
            conn,
            payments.c.owner == owner,
            payments.c.task_id == task_id,
            from_state=state,
            to_state=S.CANCELLED,
            actor=owner,
            reason="the task was stopped",
        )
    return cancelled


async def end_running(
    conn: AsyncConnection, *where: sa.ColumnElement[bool], actor: str, reason: str
) -> list[PaymentRecord]:
    """A cut-off card entry: it may have reached the merchant (G4)."""
    return await _end(
        conn, *where, from_state=S.RUNNING, to_state=S.UNCERTAIN, actor=actor, reason=reason
    )


def running_longer_than(seconds: float) -> sa.ColumnElement[bool]:
    return payments.c.started_at < sa.func.now() - sa.func.make_interval(0, 0, 0, 0, 0, 0, seconds)


def run_by(instance_id: str) -> sa.ColumnElement[bool]:
    return payments.c.runner_instance == instance_id


def run_by_dead_instances() -> sa.ColumnElement[bool]:
    # An instance with no lease row at all counts as dead too.
    return INSTANCE_LEASES.lapsed(payments.c.runner_instance)
