"""Deleting records that only grow once they are older than their keep.

Each table is pruned oldest first, in small batches, each batch its own
short transaction, so a round never holds many locks beside the calls going
on. Replicas prune side by side: a batch skips the rows another replica's
batch has locked. Each table needs an index on the time it is pruned by."""

from collections.abc import Awaitable, Sequence
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from nodkit.background import every
from nodkit.logging import get_logger

log = get_logger("nodkit.pruning")


@dataclass(frozen=True)
class Prunable:
    """A table's rows (told apart by its primary key), deleted once `time`
    is more than `keep_s` ago."""

    table: sa.Table
    time: sa.Column
    keep_s: int

    @property
    def name(self) -> str:
        return self.table.name


def _seconds_ago(seconds: int) -> sa.ColumnElement:
    return sa.func.now() - sa.func.make_interval(0, 0, 0, 0, 0, 0, seconds)


def _delete_oldest(prunable: Prunable, batch: int) -> sa.Delete:
    key = sa.tuple_(*prunable.table.primary_key.columns)
    oldest = (
        sa.select(*prunable.table.primary_key.columns)
        .where(prunable.time < _seconds_ago(prunable.keep_s))
        .order_by(prunable.time)
        .limit(batch)
        .with_for_update(skip_locked=True)
    )
    return prunable.table.delete().where(key.in_(oldest))


async def prune(engine: AsyncEngine, prunable: Prunable, batch: int) -> int:
    """Every row of `prunable` past its keep deleted; how many were."""
    statement = _delete_oldest(prunable, batch)
    removed = 0
    while True:
        async with engine.begin() as conn:
            count = (await conn.execute(statement)).rowcount
        removed += count
        if count < batch:
            return removed


async def prune_all(
    engine: AsyncEngine, prunables: Sequence[Prunable], batch: int, *, event: str
) -> dict[str, int]:
    """Each table pruned in turn; rows deleted by table, logged as `event`
    when there were any."""
    pruned = {p.name: await prune(engine, p, batch) for p in prunables}
    if any(pruned.values()):
        log.info(event, **pruned)
    return pruned


def prune_forever(
    engine: AsyncEngine, prunables: Sequence[Prunable], interval_s: float, batch: int, *, event: str
) -> Awaitable[None]:
    """A round every interval until cancelled; a failed round (the database
    away) is logged and the next one tries again."""
    return every(
        interval_s, lambda: prune_all(engine, prunables, batch, event=event), event="prune"
    )
