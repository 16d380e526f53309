"""Reading, watching and cancelling approvals. Callers pass the person
(`owner`)."""

import asyncio
import contextlib
from collections.abc import AsyncIterator

from sqlalchemy.ext.asyncio import AsyncEngine

from nod_approvals import endings, repository
from nod_approvals.changes import ChangeFeed
from nod_approvals.domain import ApprovalRecord, person
from nodkit import validation
from nodkit.errors import NotFound
from nodkit.logging import get_logger

log = get_logger("nod_approvals.approvals")

MAX_REASON = 500


class Approvals:
    def __init__(self, engine: AsyncEngine, feed: ChangeFeed, *, watch_poll_s: float) -> None:
        self._engine = engine
        self._feed = feed
        self._watch_poll_s = watch_poll_s

    async def get(self, owner: str, approval_id: str) -> ApprovalRecord:
        approval_id = validation.uuid_id("approval_id", approval_id)
        async with self._engine.connect() as conn:
            record = await repository.get_approval(conn, owner, approval_id)
        if record is None:
            raise NotFound("no such approval", reason="APPROVAL_NOT_FOUND")
        return record

    async def list_approvals(self, owner, *, task_id, state, after, limit) -> list[ApprovalRecord]:
        async with self._engine.connect() as conn:
            return await repository.list_approvals(
                conn, owner, task_id=task_id, state=state, after=after, limit=limit
            )

    async def events(self, owner: str, approval_id: str):
        record = await self.get(owner, approval_id)
        async with self._engine.connect() as conn:
            return await repository.list_events(conn, record.id)

    async def cancel_for_task(self, owner: str, task_id: str, reason: str) -> list[ApprovalRecord]:
        """Stop (G11): pending approvals of the task can no longer run. One
        already approved keeps its execution: that can't be undone."""
        task_id = validation.printable_id("task_id", task_id)
        reason = validation.text("reason", reason, max_length=MAX_REASON) or "the task was stopped"
        async with self._engine.begin() as conn:
            ids = await endings.cancel_for_task(
                conn, owner, task_id, actor=person(owner), reason=reason
            )
            records = [await repository.get_approval(conn, owner, i) for i in ids]
        records.sort(key=lambda record: (record.created_at, record.id))
        self._feed.notify(*ids)
        log.info("approvals.cancelled_for_task", task_id=task_id, approval_ids=ids)
        return records

    async def watch(self, owner: str, approval_id: str) -> AsyncIterator[ApprovalRecord]:
        """The approval now and after every change, until it is final."""
        approval_id = validation.uuid_id("approval_id", approval_id)
        shown = None
        while True:
            with self._feed.listen(approval_id) as changed:
                record = await self.get(owner, approval_id)
                if record != shown:
                    yield record
                    shown = record
                if record.is_final:
                    return
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self._watch_poll_s):
                        await changed.wait()
