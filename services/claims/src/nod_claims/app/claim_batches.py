"""Saved-item claims that arrive together go to the database together.

Under load most of a claim's cost is the round trip itself (the driver, the
event loop, the wake-ups), not the row. So claims queue here, and whenever
fewer than `concurrent` statements are out, the next one takes everything
queued (repository.claim_saved_items): with one caller a batch is one claim;
with many, a batch grows while the statements are out, like a group commit.

A batch holds at most one claim per (person, operation): a second claim of
the same operation waits for the next batch, where the unique key turns it
down and it is answered with the first one's claim. Each caller gets its own
row or none, matched by its place in the batch; an error reaches every
caller in the batch (nothing in it was granted to anyone). A claim granted
to a caller that has gone away meanwhile is handed to `undelivered`, which
ends it: nobody will type it.
"""

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from psycopg_pool import AsyncConnectionPool

from nod_claims.domain.claims import ClaimRecord, ClaimRequest
from nod_claims.store import claims as repo
from nodkit import tracing

# The claim, the item's sealed fields, and its binding's origins.
Granted = tuple[ClaimRecord, dict[str, str], list[str]]


@dataclass
class _Waiting:
    owner: str
    request: ClaimRequest
    reply: asyncio.Future = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )

    @property
    def key(self) -> tuple[str, str]:
        return self.owner, self.request.operation_id


class ClaimBatches:
    def __init__(
        self,
        pool: AsyncConnectionPool,
        *,
        concurrent: int,
        undelivered: Callable[[str, ClaimRecord], None],
        limit_s: float,
        max_batch: int = 64,
    ) -> None:
        self._pool = pool
        self._limit_s = limit_s
        self._undelivered = undelivered
        self._concurrent = concurrent
        self._max_batch = max_batch
        self._queue: list[_Waiting] = []
        self._running: set[asyncio.Task] = set()

    async def claim(self, owner: str, request: ClaimRequest) -> Granted | None:
        waiting = _Waiting(owner, request)
        self._queue.append(waiting)
        self._start_batches()
        if not tracing.enabled():
            return await waiting.reply
        # The statement as this call saw it (queued, then batched with others).
        with tracing.span("claims.claim_statement", {"db.system": "postgresql"}, statement=True):
            return await waiting.reply

    def _start_batches(self) -> None:
        while self._queue and len(self._running) < self._concurrent:
            task = asyncio.ensure_future(self._run(self._take_batch()))
            self._running.add(task)
            task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task) -> None:
        self._running.discard(task)
        self._start_batches()

    def _take_batch(self) -> list[_Waiting]:
        batch: list[_Waiting] = []
        later: list[_Waiting] = []
        keys: set[tuple[str, str]] = set()
        for waiting in self._queue:
            if waiting.key in keys or len(batch) == self._max_batch:
                later.append(waiting)
            else:
                keys.add(waiting.key)
                batch.append(waiting)
        self._queue = later
        return batch

    async def _run(self, batch: list[_Waiting]) -> None:
        try:
            # Bounded by its own limit, not by any one caller's deadline: the
            # batch serves them all.
            async with asyncio.timeout(self._limit_s), self._pool.connection() as conn:
                granted = await repo.claim_saved_items(conn, [(w.owner, w.request) for w in batch])
        except asyncio.CancelledError:
            for waiting in batch:
                waiting.reply.cancel()
            raise
        except Exception as error:  # noqa: BLE001 - handed to every caller in the batch
            for waiting in batch:
                if not waiting.reply.done():
                    waiting.reply.set_exception(error)
            return
        for index, waiting in enumerate(batch):
            grant = granted.get(index)
            if not waiting.reply.done():
                waiting.reply.set_result(grant)
            elif grant is not None:  # its caller went away while the batch ran
                self._undelivered(waiting.owner, grant[0])
