"""SQL for the per-person limits and what counts against them."""

from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncConnection

from nod_payments.domain.limits import Limits
from nod_payments.domain.payments import YES_GIVEN_STATES
from nod_payments.store.models import payment_limits, payments


def _to_limits(row: Any) -> Limits:
    return Limits(row.max_single_minor, row.max_daily_minor, row.currency, row.updated_at)


async def get_limits(conn: AsyncConnection, owner: str, *, lock: bool = False) -> Limits | None:
    """With lock, holds the person's limits row until the transaction ends,
    so two confirmations can't both count the day's total before either
    is written."""
    query = sa.select(payment_limits).where(payment_limits.c.owner == owner)
    row = (await conn.execute(query.with_for_update() if lock else query)).first()
    return _to_limits(row) if row else None


async def put_limits(conn: AsyncConnection, owner: str, limits: Limits) -> Limits:
    values = {
        "max_single_minor": limits.max_single_minor,
        "max_daily_minor": limits.max_daily_minor,
        "currency": limits.currency,
        "updated_at": sa.func.now(),
    }
    statement = (
        insert(payment_limits)
        .values(owner=owner, **values)
        .on_conflict_do_update(index_elements=[payment_limits.c.owner], set_=values)
        .returning(payment_limits)
    )
    return _to_limits((await conn.execute(statement)).one())


async def delete_limits(conn: AsyncConnection, owner: str) -> None:
    await conn.execute(payment_limits.delete().where(payment_limits.c.owner == owner))


async def spent_last_day(conn: AsyncConnection, owner: str, currency: str) -> int:
    query = sa.select(sa.func.coalesce(sa.func.sum(payments.c.amount_minor), 0)).where(
        payments.c.owner == owner,
        payments.c.currency == currency,
        payments.c.state.in_([s.value for s in YES_GIVEN_STATES]),
        payments.c.confirmed_at > sa.func.now() - sa.text("interval '24 hours'"),
    )
    return int((await conn.execute(query)).scalar_one())
