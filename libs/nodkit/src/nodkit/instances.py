"""Instance leases: which replica owns which running records (G12).

A service that runs work itself (approvals' executions, payments) stamps each
RUNNING record with its instance id and keeps a lease alive in its own
schema. On boot it ends its own RUNNING records (they were cut off); its
sweeper ends RUNNING records whose owner has no live lease (a dead replica).
A live replica's records are never touched by another.
"""

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncEngine

from nodkit.background import every


def instance_leases_table(metadata: sa.MetaData) -> sa.Table:
    return sa.Table(
        "instance_leases",
        metadata,
        sa.Column("instance_id", sa.Text, primary_key=True),
        sa.Column("lease_expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column(
            "renewed_at",
            sa.DateTime(timezone=True),
            nullable=False,
            server_default=sa.text("now()"),
        ),
    )


def live_instances(table: sa.Table) -> sa.Select:
    """Use as `owner_instance.not_in(live_instances(t))` to find dead owners'
    records: an owner with no lease row at all counts as dead too."""
    return sa.select(table.c.instance_id).where(table.c.lease_expires_at > sa.func.now())


class InstanceLease:
    def __init__(
        self, engine: AsyncEngine, table: sa.Table, instance_id: str, ttl_s: float
    ) -> None:
        self._engine = engine
        self._table = table
        self.instance_id = instance_id
        self._ttl_s = ttl_s

    async def renew(self) -> None:
        expires = sa.func.now() + sa.func.make_interval(0, 0, 0, 0, 0, 0, self._ttl_s)
        statement = (
            insert(self._table)
            .values(instance_id=self.instance_id, lease_expires_at=expires)
            .on_conflict_do_update(
                index_elements=[self._table.c.instance_id],
                set_={"lease_expires_at": expires, "renewed_at": sa.func.now()},
            )
        )
        async with self._engine.begin() as conn:
            await conn.execute(statement)

    async def renew_forever(self, interval_s: float) -> None:
        # A failed renewal is tried again next round: the lease has slack.
        await every(interval_s, self.renew, event="instance_lease.renew")
