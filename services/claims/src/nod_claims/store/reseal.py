"""SQL for re-sealing: the rows of a sealed table in id order, a batch at a
time and locked while their new values are written, and the writes."""

from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from nod_claims.store.models import private_entries, vault_items

TABLES = {"vault_items": vault_items, "private_entries": private_entries}


@dataclass(frozen=True)
class SealedRow:
    id: str
    owner: str
    sealed_fields: dict[str, str]


async def lock_batch(
    conn: AsyncConnection, table_name: str, after_id: str | None, limit: int
) -> list[SealedRow]:
    """The next `limit` rows after `after_id`, locked until the transaction
    ends, so a PutItem of the same item waits rather than being overwritten
    by its old value sealed again."""
    table = TABLES[table_name]
    query = sa.select(table.c.id, table.c.owner, table.c.sealed_fields)
    if after_id is not None:
        query = query.where(table.c.id > after_id)
    query = query.order_by(table.c.id).limit(limit).with_for_update()
    return [SealedRow(row.id, row.owner, row.sealed_fields) for row in await conn.execute(query)]


async def write_sealed(
    conn: AsyncConnection, table_name: str, row_id: str, sealed_fields: dict[str, str]
) -> None:
    # updated_at stays: the item did not change for its owner.
    table = TABLES[table_name]
    await conn.execute(
        table.update().where(table.c.id == row_id).values(sealed_fields=sealed_fields)
    )
