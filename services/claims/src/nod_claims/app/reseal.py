"""Re-sealing the vault under the newest key, so an older key can be
retired from NOD_VAULT_KEY (operator only: nodctl vault reseal).

Each batch is read, re-sealed and committed in one transaction before the
next is read, and a row whose every value already names the newest key is
left alone: a run cut short (a kill, a lost connection) is finished by
running again, and a second run writes nothing."""

from collections.abc import AsyncIterator
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncEngine

from nod_claims.app.vault import ITEM_TABLE, PRIVATE_ENTRY_TABLE
from nod_claims.store import reseal as reseal_repo
from nodkit.crypto import Sealer, SealError
from nodkit.logging import get_logger

log = get_logger("nod_claims.reseal")

MAX_BATCH = 1000
DEFAULT_BATCH = 100


@dataclass
class ResealProgress:
    table: str
    key_id: str
    resealed: int = 0
    already_current: int = 0
    unreadable: int = 0
    table_done: bool = False


class Resealer:
    def __init__(self, engine: AsyncEngine, sealer: Sealer) -> None:
        self._engine = engine
        self._sealer = sealer

    async def reseal(self, batch_size: int) -> AsyncIterator[ResealProgress]:
        """Each table's running totals after each committed batch."""
        for table in (ITEM_TABLE, PRIVATE_ENTRY_TABLE):
            progress = ResealProgress(table, self._sealer.current_key_id)
            after_id: str | None = None
            while True:
                after_id, read = await self._batch(table, after_id, batch_size, progress)
                if read < batch_size:
                    break
                yield progress
            progress.table_done = True
            log.info(
                "vault.resealed",
                table=table,
                key_id=progress.key_id,
                resealed=progress.resealed,
                already_current=progress.already_current,
                unreadable=progress.unreadable,
            )
            yield progress

    async def _batch(
        self, table: str, after_id: str | None, batch_size: int, progress: ResealProgress
    ) -> tuple[str | None, int]:
        async with self._engine.begin() as conn:
            rows = await reseal_repo.lock_batch(conn, table, after_id, batch_size)
            for row in rows:
                if self._sealer.fields_current(row.sealed_fields):
                    progress.already_current += 1
                    continue
                try:
                    sealed = self._sealer.reseal_fields(row.sealed_fields, row.owner, table, row.id)
                except SealError:
                    # Sealed under a key this service no longer has: left as
                    # it is (and counted), never dropped.
                    log.warning("vault.reseal_unreadable", table=table, row_id=row.id)
                    progress.unreadable += 1
                    continue
                await reseal_repo.write_sealed(conn, table, row.id, sealed)
                progress.resealed += 1
        return (rows[-1].id if rows else after_id), len(rows)
