"""SQL for card bindings: inserted once per (person, operation), never changed."""

from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncConnection

from nod_claims.domain.bindings import CardBinding, CardBindingRequest
from nod_claims.store.models import card_bindings


def _binding(row: Any) -> CardBinding:
    return CardBinding(
        operation_id=row.operation_id,
        item_id=str(row.item_id),
        task_id=row.task_id,
        merchant_origin=row.merchant_origin,
        hosted_payment_origins=tuple(row.hosted_payment_origins),
        created_at=row.created_at,
    )


async def insert_binding(
    conn: AsyncConnection, owner: str, request: CardBindingRequest
) -> CardBinding | None:
    """The new binding; None when the operation was bound before (a racing
    insert of the same key is waited for, so the loser reads the winner's)."""
    statement = (
        insert(card_bindings)
        .values(
            owner=owner,
            operation_id=request.operation_id,
            item_id=request.item_id,
            task_id=request.task_id,
            merchant_origin=request.merchant_origin,
            hosted_payment_origins=list(request.hosted_payment_origins),
        )
        .on_conflict_do_nothing(
            index_elements=[card_bindings.c.owner, card_bindings.c.operation_id]
        )
        .returning(card_bindings)
    )
    row = (await conn.execute(statement)).first()
    return _binding(row) if row else None


async def get_binding(conn: AsyncConnection, owner: str, operation_id: str) -> CardBinding | None:
    query = sa.select(card_bindings).where(
        card_bindings.c.owner == owner, card_bindings.c.operation_id == operation_id
    )
    row = (await conn.execute(query)).first()
    return _binding(row) if row else None
