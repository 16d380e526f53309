"""Re-sealing a service's sealed values under the newest key, so an older
key can be retired from its key ring (operator only: `nodctl vault reseal`).

A sealed table has an `id`, an `owner` and a JSON column of sealed fields,
each sealed for (owner, table name, row id, field name). Each batch is read
in id order, locked, re-sealed and committed in one transaction before the
next is read: a write of the same row waits rather than being overwritten
by its old value sealed again. A row whose every value already names the
newest key is left alone, so a run cut short (a kill, a lost connection)
is finished by running again, and a second run writes nothing. A value
sealed under a key the service no longer has is left as it is, and
counted, never dropped.
"""

from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import asdict, dataclass
from typing import TypeVar

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from nodkit.crypto import Sealer, SealError
from nodkit.errors import InvalidArgument
from nodkit.logging import get_logger

log = get_logger("nodkit.resealing")
Reply = TypeVar("Reply")

MAX_BATCH = 1000
DEFAULT_BATCH = 100


@dataclass(frozen=True)
class SealedTable:
    """`name` is the table's name in the sealing context (and the replies)."""

    name: str
    table: sa.Table
    sealed_column: str


@dataclass
class ResealProgress:
    table: str
    key_id: str
    resealed: int = 0
    already_current: int = 0
    unreadable: int = 0
    table_done: bool = False


def batch_size_of(requested: int) -> int:
    """A request's batch size: 0 means the default; out of range is refused."""
    batch_size = requested or DEFAULT_BATCH
    if not 1 <= batch_size <= MAX_BATCH:
        raise InvalidArgument("batch_size", f"must be 1 to {MAX_BATCH} (0: {DEFAULT_BATCH})")
    return batch_size


class Resealer:
    def __init__(self, engine: AsyncEngine, sealer: Sealer, tables: Sequence[SealedTable]) -> None:
        self._engine = engine
        self._sealer = sealer
        self._tables = tables

    async def reseal(self, batch_size: int) -> AsyncIterator[ResealProgress]:
        """Each table's running totals after each committed batch."""
        for sealed in self._tables:
            progress = ResealProgress(sealed.name, self._sealer.current_key_id)
            after_id: str | None = None
            while True:
                after_id, read = await self._batch(sealed, after_id, batch_size, progress)
                if read < batch_size:
                    break
                yield progress
            progress.table_done = True
            log.info(
                "sealed.resealed",
                table=sealed.name,
                key_id=progress.key_id,
                resealed=progress.resealed,
                already_current=progress.already_current,
                unreadable=progress.unreadable,
            )
            yield progress

    async def _batch(
        self, sealed: SealedTable, after_id: str | None, limit: int, progress: ResealProgress
    ) -> tuple[str | None, int]:
        async with self._engine.begin() as conn:
            rows = await _lock_batch(conn, sealed, after_id, limit)
            for row_id, owner, fields in rows:
                if self._sealer.fields_current(fields):
                    progress.already_current += 1
                    continue
                try:
                    again = self._sealer.reseal_fields(fields, owner, sealed.name, row_id)
                except SealError:
                    log.warning("sealed.reseal_unreadable", table=sealed.name, row_id=row_id)
                    progress.unreadable += 1
                    continue
                await _write(conn, sealed, row_id, again)
                progress.resealed += 1
        return (rows[-1][0] if rows else after_id), len(rows)


async def _lock_batch(
    conn: AsyncConnection, sealed: SealedTable, after_id: str | None, limit: int
) -> list[tuple[str, str, dict[str, str]]]:
    table = sealed.table
    query = sa.select(table.c.id, table.c.owner, table.c[sealed.sealed_column])
    if after_id is not None:
        query = query.where(table.c.id > after_id)
    query = query.order_by(table.c.id).limit(limit).with_for_update()
    return [(str(row[0]), row[1], row[2]) for row in await conn.execute(query)]


async def _write(
    conn: AsyncConnection, sealed: SealedTable, row_id: str, fields: dict[str, str]
) -> None:
    # Any updated_at stays: the row did not change for its owner.
    table = sealed.table
    await conn.execute(
        table.update().where(table.c.id == row_id).values({sealed.sealed_column: fields})
    )


async def replies(
    resealer: Resealer, requested_batch: int, reply: Callable[..., Reply]
) -> AsyncIterator[Reply]:
    """A Reseal call's stream: `reply` (the service's ResealResponse, whose
    fields are ResealProgress's) after each committed batch."""
    async for progress in resealer.reseal(batch_size_of(requested_batch)):
        yield reply(**asdict(progress))
