"""SQL for accounts. Disconnecting keeps the row (approvals point at it) but
destroys its sealed credentials."""

import uuid

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.ext.asyncio import AsyncConnection

from nod_approvals.domain.accounts import AccountRecord
from nod_approvals.store.models import accounts


def new_id() -> str:
    """Made before insert so the id can be sealed into the row's associated data."""
    return str(uuid.uuid4())


def _record(row) -> AccountRecord:
    return AccountRecord(
        id=row.id,
        app=row.app,
        label=row.label,
        settings=row.settings,
        sealed_credentials=row.sealed_credentials,
        created_at=row.created_at,
        disconnected_at=row.disconnected_at,
    )


async def insert_account(conn: AsyncConnection, owner: str, account_id: str, **values):
    statement = accounts.insert().values(id=account_id, owner=owner, **values).returning(accounts)
    return _record((await conn.execute(statement)).one())


async def get_account(
    conn: AsyncConnection, owner: str, account_id: str, *, connected_only: bool = False
) -> AccountRecord | None:
    query = sa.select(accounts).where(accounts.c.owner == owner, accounts.c.id == account_id)
    if connected_only:
        query = query.where(accounts.c.disconnected_at.is_(None))
    row = (await conn.execute(query)).first()
    return _record(row) if row else None


async def list_connected(conn: AsyncConnection, owner: str) -> list[AccountRecord]:
    query = (
        sa.select(accounts)
        .where(accounts.c.owner == owner, accounts.c.disconnected_at.is_(None))
        .order_by(accounts.c.created_at, accounts.c.id)
    )
    return [_record(row) for row in await conn.execute(query)]


async def disconnect(conn: AsyncConnection, owner: str, account_id: str) -> AccountRecord | None:
    statement = (
        accounts.update()
        .where(
            accounts.c.owner == owner,
            accounts.c.id == account_id,
            accounts.c.disconnected_at.is_(None),
        )
        .values(disconnected_at=sa.func.now(), sealed_credentials={})
        .returning(accounts)
    )
    row = (await conn.execute(statement)).first()
    return _record(row) if row else None


async def erase_disconnected(conn: AsyncConnection, owner: str) -> int:
    """The label and settings (an app's address, a sender) of the owner's
    disconnected accounts (the person is being removed); how many had any.
    The row stays: its approvals name it."""
    erased = await conn.execute(
        accounts.update()
        .where(
            accounts.c.owner == owner,
            accounts.c.disconnected_at.is_not(None),
            sa.or_(accounts.c.label != "", accounts.c.settings != sa.cast(sa.literal("{}"), JSONB)),
        )
        .values(label="", settings={})
        .returning(accounts.c.id)
    )
    return len(erased.all())
