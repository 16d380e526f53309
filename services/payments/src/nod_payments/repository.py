"""SQL for reading and inserting payments. Uniqueness of an order is the
partial unique index's job; state changes are in moves.py."""

from dataclasses import asdict
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncConnection

from nod_payments.domain import PaymentOutcome, PaymentRecord, PaymentState
from nod_payments.models import DEAD_STATES, payment_events, payments
from nod_payments.orders import PaymentRequest


def _id(value) -> str | None:
    return None if value is None else str(value)


def to_record(row) -> PaymentRecord:
    return PaymentRecord(
        id=_id(row.id),
        task_id=row.task_id,
        merchant_origin=row.merchant_origin,
        amount_minor=row.amount_minor,
        currency=row.currency,
        description=row.description,
        card_item_id=_id(row.card_item_id),
        card_label=row.card_label,
        order_reference=row.order_reference,
        repeat_of_payment_id=_id(row.repeat_of_payment_id),
        state=PaymentState(row.state),
        outcome=PaymentOutcome(row.outcome) if row.outcome else None,
        card_operation_id=row.card_operation_id,
        claim_id=_id(row.claim_id),
        runner_instance=row.runner_instance,
        reason=row.reason,
        created_at=row.created_at,
        updated_at=row.updated_at,
        expires_at=row.expires_at,
        confirmed_at=row.confirmed_at,
        started_at=row.started_at,
    )


def seconds_from_now(seconds: float):
    return sa.func.now() + sa.func.make_interval(0, 0, 0, 0, 0, 0, seconds)


async def insert_payment(
    conn: AsyncConnection, owner: str, request: PaymentRequest, key: str, ttl_s: float
) -> PaymentRecord | None:
    """None when a live payment already holds the order."""
    statement = (
        insert(payments)
        .values(
            owner=owner,
            order_key=key,
            state=PaymentState.AWAITING_CONFIRMATION.value,
            expires_at=seconds_from_now(ttl_s),
            **asdict(request),
        )
        .on_conflict_do_nothing(
            index_elements=[payments.c.owner, payments.c.order_key],
            index_where=sa.text(f"state NOT IN ({DEAD_STATES})"),
        )
        .returning(payments)
    )
    row = (await conn.execute(statement)).first()
    return to_record(row) if row else None


async def live_payment_for_order(
    conn: AsyncConnection, owner: str, key: str
) -> PaymentRecord | None:
    query = sa.select(payments).where(
        payments.c.owner == owner,
        payments.c.order_key == key,
        sa.text(f"state NOT IN ({DEAD_STATES})"),
    )
    row = (await conn.execute(query)).first()
    return to_record(row) if row else None


async def add_event(conn: AsyncConnection, payment_id: str, *, actor: str, to_state) -> None:
    await conn.execute(
        payment_events.insert().values(payment_id=payment_id, actor=actor, to_state=to_state.value)
    )


def one_payment(owner: str, payment_id: str) -> list:
    return [payments.c.owner == owner, payments.c.id == payment_id]


async def get_payment(conn: AsyncConnection, owner: str, payment_id: str) -> PaymentRecord | None:
    row = (await conn.execute(sa.select(payments).where(*one_payment(owner, payment_id)))).first()
    return to_record(row) if row else None


async def list_payments(
    conn: AsyncConnection,
    owner: str,
    *,
    task_id: str | None = None,
    state: PaymentState | None = None,
    after: tuple[datetime, str] | None = None,
    limit: int,
) -> list[PaymentRecord]:
    query = sa.select(payments).where(payments.c.owner == owner)
    if task_id is not None:
        query = query.where(payments.c.task_id == task_id)
    if state is not None:
        query = query.where(payments.c.state == state.value)
    if after is not None:
        position = sa.tuple_(payments.c.created_at, payments.c.id)
        query = query.where(position > sa.tuple_(*after, types=[c.type for c in position.clauses]))
    query = query.order_by(payments.c.created_at, payments.c.id).limit(limit)
    return [to_record(row) for row in await conn.execute(query)]


async def list_events(conn: AsyncConnection, payment_id: str):
    query = (
        sa.select(payment_events)
        .where(payment_events.c.payment_id == payment_id)
        .order_by(payment_events.c.id)
    )
    return list(await conn.execute(query))
