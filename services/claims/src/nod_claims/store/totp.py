"""SQL for the TOTP time steps granted per saved login: the next step not
granted yet, recorded in the same statement (a unique key per step; of two
racing grants one loses and takes the step after)."""

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

_RESERVE = sa.text(
    """
    INSERT INTO claims.totp_steps (owner, item_id, step, claim_id)
    SELECT :owner, :item_id, greatest(:now_step, coalesce(max(step) + 1, :now_step)), :claim_id
      FROM claims.totp_steps
     WHERE owner = :owner AND item_id = :item_id
    ON CONFLICT DO NOTHING
    RETURNING step
    """
)


async def reserve_step(
    conn: AsyncConnection, owner: str, item_id: str, now_step: int, claim_id: str
) -> int | None:
    """The step granted to this claim; None when a racing grant took it."""
    params = {"owner": owner, "item_id": item_id, "now_step": now_step, "claim_id": claim_id}
    return (await conn.execute(_RESERVE, params)).scalar_one_or_none()
