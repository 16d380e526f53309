"""SQL for the TOTP time steps whose codes were given, per account: a step is
taken by one claim for every key of its account at once (a unique key per
key and step), or by none.

The per-login table of earlier releases is written too, while a release
that reads only it may still be running beside this one (a rollout): a step
either takes from the other is taken for both."""

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

# Keys in one order, so two claims sharing some keys never wait on each
# other in a cycle. Nothing is left out when a key's step was taken
# already: its row is simply not inserted, and the count says so.
_TAKE = sa.text(
    """
    WITH by_account AS (
        INSERT INTO claims.totp_account_steps (account_key, step, claim_id)
        SELECT account_key, :step, :claim_id
          FROM unnest(CAST(:keys AS text[])) AS account_key
         ORDER BY account_key
        ON CONFLICT DO NOTHING
        RETURNING 1
    ), by_login AS (
        INSERT INTO claims.totp_steps (owner, item_id, step, claim_id)
        VALUES (:owner, :item_id, :step, :claim_id)
        ON CONFLICT DO NOTHING
        RETURNING 1
    )
    SELECT (SELECT count(*) FROM by_account) + (SELECT count(*) FROM by_login)
    """
)


async def take_step(
    conn: AsyncConnection,
    keys: list[str],
    *,
    owner: str,
    item_id: str,
    step: int,
    claim_id: str,
) -> bool:
    """Whether the claim took `step` for every key (inside the claim's own
    transaction). When another claim holds the step under any key, nothing
    of this attempt stays: it is rolled back to before it, and another
    claim waiting on one of its rows goes on at once."""
    keys = sorted(set(keys))
    params = {
        "keys": keys,
        "owner": owner,
        "item_id": item_id,
        "step": step,
        "claim_id": claim_id,
    }
    async with conn.begin_nested() as attempt:
        if (await conn.execute(_TAKE, params)).scalar_one() == len(keys) + 1:
            return True
        await attempt.rollback()
        return False
