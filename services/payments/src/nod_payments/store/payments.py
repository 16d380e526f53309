"""SQL for inserting and reading payments. Uniqueness of an order is the
partial unique index's job; state changes are in transitions.py."""

from dataclasses import asdict
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncConnection

from nod_payments.domain.orders import OrderKeys
from nod_payments.domain.payments import PaymentOutcome, PaymentRecord, PaymentState
from nod_payments.domain.requests import PaymentRequest
from nod_payments.store.models import DEAD_STATES, PAYMENT_HISTORY, payments
from nodkit import history, listing
from nodkit.leases import seconds_from_now

LIVE = sa.text(f"state NOT IN ({DEAD_STATES})")


def _id(value: Any) -> str:
    return str(value)


def _optional_id(value: Any) -> str | None:
    return None if value is None else str(value)


def to_record(row: Any) -> PaymentRecord:
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
        repeat_of_payment_id=_optional_id(row.repeat_of_payment_id),
        state=PaymentState(row.state),
        outcome=PaymentOutcome(row.outcome) if row.outcome else None,
        card_operation_id=row.card_operation_id,
        claim_id=_optional_id(row.claim_id),
        runner_instance=row.runner_instance,
        reason=row.reason,
        created_at=row.created_at,
        updated_at=row.updated_at,
        expires_at=row.expires_at,
        confirmed_at=row.confirmed_at,
        started_at=row.started_at,
        request_id=row.request_id,
        hosted_payment_origins=tuple(row.hosted_payment_origins or ()),
    )


def one_payment(owner: str, payment_id: str) -> list[sa.ColumnElement[bool]]:
    return [payments.c.owner == owner, payments.c.id == payment_id]


async def insert_payment(
    conn: AsyncConnection, owner: str, request: PaymentRequest, keys: OrderKeys, ttl_s: float
) -> PaymentRecord | None:
    """The new payment and its first history row; None when the request_id
    was used before or a live payment already holds the order (any unique
    key: the caller finds out which by reading)."""
    statement = (
        insert(payments)
        .values(
            owner=owner,
            order_key=keys.contents,
            reference_key=keys.reference,
            state=PaymentState.AWAITING_CONFIRMATION.value,
            expires_at=seconds_from_now(ttl_s),
            **(asdict(request) | {"hosted_payment_origins": list(request.hosted_payment_origins)}),
        )
        .on_conflict_do_nothing()
        .returning(payments)
    )
    row = (await conn.execute(statement)).first()
    if row is None:
        return None
    await history.record(
        conn, PAYMENT_HISTORY, row.id, actor=owner, to_state=PaymentState.AWAITING_CONFIRMATION
    )
    return to_record(row)


async def payment_for_request(
    conn: AsyncConnection, owner: str, request_id: str
) -> PaymentRecord | None:
    query = sa.select(payments).where(
        payments.c.owner == owner, payments.c.request_id == request_id
    )
    row = (await conn.execute(query)).first()
    return to_record(row) if row else None


async def live_payment_for_order(
    conn: AsyncConnection, owner: str, keys: OrderKeys
) -> PaymentRecord | None:
    same_order = payments.c.order_key == keys.contents
    if keys.reference is not None:
        same_order = sa.or_(same_order, payments.c.reference_key == keys.reference)
    query = sa.select(payments).where(payments.c.owner == owner, same_order, LIVE)
    # An uncertain one first: the person must check it before anything else.
    uncertain_first = (payments.c.state == PaymentState.UNCERTAIN.value).desc()
    row = (await conn.execute(query.order_by(uncertain_first, payments.c.created_at))).first()
    return to_record(row) if row else None


async def get_payment(conn: AsyncConnection, owner: str, payment_id: str) -> PaymentRecord | None:
    row = (await conn.execute(sa.select(payments).where(*one_payment(owner, payment_id)))).first()
    return to_record(row) if row else None


async def list_payments(
    conn: AsyncConnection,
    owner: str,
    *,
    task_id: str | None,
    state: PaymentState | None,
    page: listing.PageRequest,
) -> listing.Page[PaymentRecord]:
    query = sa.select(payments).where(payments.c.owner == owner)
    if task_id is not None:
        query = query.where(payments.c.task_id == task_id)
    if state is not None:
        query = query.where(payments.c.state == state.value)
    return await listing.fetch_page(conn, query, payments, page, to_record)


async def running_for_task(conn: AsyncConnection, owner: str, task_id: str) -> list[PaymentRecord]:
    query = (
        sa.select(payments)
        .where(
            payments.c.owner == owner,
            payments.c.task_id == task_id,
            payments.c.state == PaymentState.RUNNING.value,
        )
        .order_by(payments.c.created_at, payments.c.id)
    )
    return [to_record(row) for row in await conn.execute(query)]


async def list_events(conn: AsyncConnection, payment_id: str) -> list[sa.Row]:
    return await history.events(conn, PAYMENT_HISTORY, payment_id)
