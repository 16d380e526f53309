"""What `nod-approvals drop-unreadable` (through `nodctl vault
drop-unreadable`) drops of the credentials sealed under vault keys that are
lost for good. They can never open again, so the account is disconnected,
as DisconnectAccount does: its credentials are emptied and it is marked
disconnected. The row stays, since its approvals and their executions point
at it and keep their records; an approval still pending on it ends NOT_RUN
if approved ("the account was disconnected before sending"). The person
connects the app again to use it."""

from collections import Counter
from collections.abc import Sequence

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from nod_approvals.store.models import accounts
from nod_approvals.store.reseal import SEALED_TABLES
from nodkit.startup import Dropped, sealed_with

DISCONNECTED = "disconnected"


async def drop_unreadable(conn: AsyncConnection, key_ids: Sequence[str]) -> list[Dropped]:
    """Disconnects every account whose credentials name one of `key_ids`,
    in the caller's transaction; how many of each app."""
    dropped: list[Dropped] = []
    for sealed in SEALED_TABLES:
        where = await sealed_with(conn, sealed, key_ids)
        if where is None:
            continue
        statement = (
            accounts.update()
            .where(where)
            .values(
                sealed_credentials={},
                disconnected_at=sa.func.coalesce(accounts.c.disconnected_at, sa.func.now()),
            )
            .returning(accounts.c.app)
        )
        apps = Counter(row.app for row in await conn.execute(statement))
        dropped += [
            Dropped(sealed.name, app, rows, DISCONNECTED) for app, rows in sorted(apps.items())
        ]
    return dropped
