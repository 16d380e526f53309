"""Leases: which owner holds which running records, and for how long (G12).

One mechanism for every service. An owner (a service instance, or a browser
runner holding claims) renews its lease well inside the ttl. Whoever ends
cut-off work ends only the RUNNING records of owners whose lease has lapsed
(an owner with no lease at all counts as lapsed), never a live one's.
"""

from collections.abc import Awaitable, Callable
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from nodkit.background import every


def leases_table(
    metadata: sa.MetaData, name: str = "instance_leases", key: str = "instance_id"
) -> sa.Table:
    return sa.Table(
        name,
        metadata,
        sa.Column(key, sa.Text, primary_key=True),
        sa.Column("lease_expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column(
            "renewed_at",
            sa.DateTime(timezone=True),
            nullable=False,
            server_default=sa.text("now()"),
        ),
    )


def seconds_from_now(seconds: float) -> sa.ColumnElement:
    return sa.func.now() + sa.func.make_interval(0, 0, 0, 0, 0, 0, seconds)


class Leases:
    def __init__(self, table: sa.Table) -> None:
        self.table = table
        (self._owner,) = table.primary_key.columns

    def live_owners(self) -> sa.Select:
        return sa.select(self._owner).where(self.table.c.lease_expires_at > sa.func.now())

    def lapsed(self, owner_column: sa.ColumnElement) -> sa.ColumnElement[bool]:
        """True for records whose owner holds no live lease."""
        return owner_column.not_in(self.live_owners())

    def is_live(self, owner: sa.ColumnElement | str) -> sa.ColumnElement[bool]:
        return sa.exists().where(
            self._owner == owner, self.table.c.lease_expires_at > sa.func.now()
        )

    async def renew(self, conn: AsyncConnection, owner: str, ttl_s: float) -> datetime:
        expires = seconds_from_now(ttl_s)
        statement = (
            insert(self.table)
            .values({self._owner.name: owner, "lease_expires_at": expires})
            .on_conflict_do_update(
                index_elements=[self._owner],
                set_={"lease_expires_at": expires, "renewed_at": sa.func.now()},
            )
            .returning(self.table.c.lease_expires_at)
        )
        return (await conn.execute(statement)).scalar_one()


class OwnLease:
    """This instance's own lease, renewed every ttl/3 while it serves."""

    def __init__(self, engine: AsyncEngine, leases: Leases, instance_id: str, ttl_s: float) -> None:
        self._engine = engine
        self._leases = leases
        self.instance_id = instance_id
        self._ttl_s = ttl_s

    async def renew(self) -> None:
        async with self._engine.begin() as conn:
            await self._leases.renew(conn, self.instance_id, self._ttl_s)

    def keep_alive(self) -> Callable[[], Awaitable[None]]:
        # A failed renewal is tried again next round: the lease has slack.
        return lambda: every(self._ttl_s / 3, self.renew, event="lease.renew")
