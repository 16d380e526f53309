"""Reading, watching and cancelling approvals. Callers pass the person
(`owner`)."""

from collections.abc import AsyncIterator

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from nod_approvals.domain.approvals import (
    DEFAULT_CANCEL_REASON,
    ApprovalRecord,
    ApprovalState,
    WordsErased,
    person,
)
from nod_approvals.store import accounts as accounts_repo
from nod_approvals.store import approvals as repo
from nodkit import listing, validation
from nodkit.logging import get_logger
from nodkit.notices import Notices, follow

log = get_logger("nod_approvals.approvals")

MAX_REASON = 500


class Approvals:
    def __init__(self, engine: AsyncEngine, notices: Notices, *, watch_poll_s: float) -> None:
        self._engine = engine
        self._notices = notices
        self._watch_poll_s = watch_poll_s

    async def get(self, owner: str, approval_id: str) -> ApprovalRecord:
        approval_id = validation.uuid_id("approval_id", approval_id)
        async with self._engine.connect() as conn:
            return await repo.get_approval(conn, owner, approval_id)

    async def list_approvals(
        self,
        owner: str,
        *,
        task_id: str,
        state: ApprovalState | None,
        page: listing.PageRequest,
    ) -> listing.Page[ApprovalRecord]:
        """`task_id` empty: every task's."""
        task = validation.printable_id("task_id", task_id) if task_id else None
        async with self._engine.connect() as conn:
            return await repo.list_approvals(conn, owner, task_id=task, state=state, page=page)

    async def events(self, owner: str, approval_id: str) -> list[sa.Row]:
        record = await self.get(owner, approval_id)
        async with self._engine.connect() as conn:
            return await repo.list_events(conn, record.id)

    async def cancel_for_task(self, owner: str, task_id: str, reason: str) -> list[ApprovalRecord]:
        """Stop (G11): pending approvals of the task can no longer run. One
        already approved keeps its execution: that can't be undone."""
        task_id = validation.printable_id("task_id", task_id)
        reason = validation.text("reason", reason, max_length=MAX_REASON) or DEFAULT_CANCEL_REASON
        async with self._engine.begin() as conn:
            ids = await repo.cancel_for_task(
                conn, owner, task_id, actor=person(owner), reason=reason
            )
            records = await repo.get_approvals(conn, owner, ids)
        log.info("approvals.cancelled_for_task", task_id=task_id, approval_ids=ids)
        return records

    async def erase_words(self, owner: str) -> WordsErased:
        """The words of the person's approvals that are over and of their
        disconnected accounts (the person is being removed)."""
        async with self._engine.begin() as conn:
            erased, still_open = await repo.erase_words_of(conn, owner)
            accounts = await accounts_repo.erase_disconnected(conn, owner)
        log.info(
            "approvals.words_erased", count=erased, still_open=len(still_open), accounts=accounts
        )
        return WordsErased(erased, still_open, accounts)

    async def watch(self, owner: str, approval_id: str) -> AsyncIterator[ApprovalRecord]:
        """The approval now and after every change, until it is final. It
        looks again when the approval's changes are announced (migration
        0004, any instance's), and every watch_poll_s regardless."""
        approval_id = validation.uuid_id("approval_id", approval_id)
        looks = follow(
            self._notices, approval_id, lambda: self.get(owner, approval_id), self._watch_poll_s
        )
        async for record in looks:
            yield record
