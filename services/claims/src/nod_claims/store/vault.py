"""SQL for vault items and one-time private entries. Private values are only
ever stored sealed, in `sealed_fields`."""

import uuid
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncConnection

from nod_claims.domain.claims import EntryKind
from nod_claims.domain.vault import StoredItem
from nod_claims.domain.vault_requests import FirstRequest
from nod_claims.store.models import private_entries, vault_items, vault_requests


@dataclass(frozen=True)
class TakenEntry:
    id: str
    kind: EntryKind
    task_id: str
    sealed_fields: dict[str, str]
    # The page and frame its private form was asked for (None: unbound).
    origin: str | None = None
    frame_origin: str | None = None


def _item(row) -> StoredItem:
    return StoredItem(
        id=row.id,
        kind=EntryKind(row.kind),
        label=row.label,
        origin=row.origin,
        equivalent_origins=tuple(row.equivalent_origins or ()),
        masked_fields=row.masked_fields,
        sealed_fields=row.sealed_fields,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def new_id() -> str:
    """Made before insert so the id can be sealed into the row's associated data."""
    return str(uuid.uuid4())


async def insert_item(conn: AsyncConnection, owner: str, item_id: str, **values) -> StoredItem:
    row = (
        await conn.execute(
            vault_items.insert().values(id=item_id, owner=owner, **values).returning(vault_items)
        )
    ).one()
    return _item(row)


async def replace_item(
    conn: AsyncConnection, owner: str, item_id: str, **values
) -> StoredItem | None:
    row = (
        await conn.execute(
            vault_items.update()
            .where(
                vault_items.c.owner == owner,
                vault_items.c.id == item_id,
                vault_items.c.kind == values["kind"],
            )
            .values(updated_at=sa.func.now(), **values)
            .returning(vault_items)
        )
    ).first()
    return _item(row) if row else None


async def get_item(conn: AsyncConnection, owner: str, item_id: str) -> StoredItem | None:
    row = (
        await conn.execute(
            sa.select(vault_items).where(vault_items.c.owner == owner, vault_items.c.id == item_id)
        )
    ).first()
    return _item(row) if row else None


async def list_items(conn: AsyncConnection, owner: str, kind: EntryKind | None) -> list[StoredItem]:
    query = sa.select(vault_items).where(vault_items.c.owner == owner)
    if kind is not None:
        query = query.where(vault_items.c.kind == kind.value)
    return [_item(row) for row in await conn.execute(query.order_by(vault_items.c.created_at))]


async def delete_item(conn: AsyncConnection, owner: str, item_id: str) -> bool:
    result = await conn.execute(
        vault_items.delete().where(vault_items.c.owner == owner, vault_items.c.id == item_id)
    )
    return result.rowcount == 1


async def insert_private_entry(
    conn: AsyncConnection,
    owner: str,
    entry_id: str,
    *,
    task_id: str,
    kind: EntryKind,
    sealed_fields: dict[str, str],
    ttl_s: float,
    origin: str | None,
    frame_origin: str | None,
) -> None:
    expires = sa.func.now() + sa.func.make_interval(0, 0, 0, 0, 0, 0, ttl_s)
    await conn.execute(
        private_entries.insert().values(
            id=entry_id,
            owner=owner,
            task_id=task_id,
            kind=kind.value,
            sealed_fields=sealed_fields,
            origin=origin,
            frame_origin=frame_origin,
            expires_at=expires,
        )
    )


async def take_private_entry(conn: AsyncConnection, owner: str, entry_id: str) -> TakenEntry | None:
    """Deletes the entry and returns it: a one-time value is gone once used."""
    row = (
        await conn.execute(
            private_entries.delete()
            .where(
                private_entries.c.owner == owner,
                private_entries.c.id == entry_id,
                private_entries.c.expires_at > sa.func.now(),
            )
            .returning(private_entries)
        )
    ).first()
    if row is None:
        return None
    return TakenEntry(
        row.id, EntryKind(row.kind), row.task_id, row.sealed_fields, row.origin, row.frame_origin
    )


async def discard_task_entries(conn: AsyncConnection, owner: str, task_id: str) -> int:
    result = await conn.execute(
        private_entries.delete().where(
            private_entries.c.owner == owner, private_entries.c.task_id == task_id
        )
    )
    return result.rowcount


async def discard_expired_entries(conn: AsyncConnection) -> int:
    result = await conn.execute(
        private_entries.delete().where(private_entries.c.expires_at <= sa.func.now())
    )
    return result.rowcount


async def record_request(
    conn: AsyncConnection, owner: str, request_id: str, *, call: str, record_id: str, digest: str
) -> bool:
    """True when the request id is new and is now held by this request;
    False when an earlier request holds it. A racing insert of the same id
    is waited for (the unique key), so the loser reads the winner's row."""
    statement = (
        insert(vault_requests)
        .values(owner=owner, request_id=request_id, call=call, record_id=record_id, digest=digest)
        .on_conflict_do_nothing(
            index_elements=[vault_requests.c.owner, vault_requests.c.request_id]
        )
        .returning(vault_requests.c.request_id)
    )
    return (await conn.execute(statement)).first() is not None


async def first_request(conn: AsyncConnection, owner: str, request_id: str) -> FirstRequest | None:
    row = (
        await conn.execute(
            sa.select(vault_requests).where(
                vault_requests.c.owner == owner, vault_requests.c.request_id == request_id
            )
        )
    ).first()
    return FirstRequest(row.call, row.record_id, row.digest) if row else None
