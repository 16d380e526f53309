"""Every state change is one statement: a conditional UPDATE whose returned
rows say what changed (none when another change won the race), and the
INSERT of their events in the same statement, so a payment can't change
without its history."""

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from nod_payments.domain import PaymentRecord, PaymentState
from nod_payments.models import payment_events, payments
from nod_payments.repository import to_record


async def move(
    conn: AsyncConnection,
    *where,
    from_state: PaymentState,
    to_state: PaymentState,
    actor: str,
    event_reason: str = "",
    **values,
) -> list[PaymentRecord]:
    """`from_state` -> `to_state` for the rows matching `where`, setting
    `values`; returns the rows that moved (none if another change won)."""
    moved = (
        payments.update()
        .where(payments.c.state == from_state.value, *where)
        .values(state=to_state.value, updated_at=sa.func.now(), **values)
        .returning(*payments.c)
        .cte("moved")
    )
    event = [
        sa.literal(actor, sa.Text),
        sa.literal(from_state.value, sa.Text),
        sa.literal(to_state.value, sa.Text),
        sa.literal(event_reason, sa.Text),
    ]
    logged = (
        payment_events.insert()
        .from_select(
            ["payment_id", "actor", "from_state", "to_state", "reason"],
            sa.select(moved.c.id, *event),
        )
        .cte("logged")
    )
    query = sa.select(moved).add_cte(logged).order_by(moved.c.created_at, moved.c.id)
    return [to_record(row) for row in await conn.execute(query)]
