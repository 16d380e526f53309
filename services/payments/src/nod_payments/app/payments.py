"""Reading payments, watching one, and Stop (CancelForTask, G11)."""

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from nod_payments.domain.card_entry import cancel_reason
from nod_payments.domain.payments import PaymentRecord, PaymentState
from nod_payments.domain.refusals import existing
from nod_payments.store import payments as store
from nod_payments.store import transitions
from nodkit import listing, validation
from nodkit.logging import get_logger
from nodkit.notices import Notices, follow

log = get_logger("nod_payments.payments")


@dataclass(frozen=True)
class Cancellation:
    cancelled: list[PaymentRecord]
    # Their card entry may already have reached the merchant: left to finish.
    left_running: list[PaymentRecord]


class Payments:
    def __init__(self, engine: AsyncEngine, notices: Notices, *, watch_poll_s: float) -> None:
        self._engine = engine
        self._notices = notices
        self._watch_poll_s = watch_poll_s

    async def get(self, owner: str, payment_id: str) -> PaymentRecord:
        payment_id = validation.uuid_id("payment_id", payment_id)
        async with self._engine.connect() as conn:
            return existing(await store.get_payment(conn, owner, payment_id))

    async def list(
        self,
        owner: str,
        *,
        task_id: str,
        state: PaymentState | None,
        page: listing.PageRequest,
    ) -> listing.Page[PaymentRecord]:
        task = validation.printable_id("task_id", task_id) if task_id else None
        async with self._engine.connect() as conn:
            return await store.list_payments(conn, owner, task_id=task, state=state, page=page)

    async def events(self, owner: str, payment_id: str) -> Sequence[sa.Row]:
        record = await self.get(owner, payment_id)
        async with self._engine.connect() as conn:
            return await store.list_events(conn, record.id)

    async def cancel_for_task(self, owner: str, task_id: str, reason: str = "") -> Cancellation:
        """What the task left waiting (awaiting a yes, or a yes nobody used)
        is cancelled, with why; a card entry under way is left to finish."""
        task_id = validation.printable_id("task_id", task_id)
        reason = cancel_reason(reason)
        async with self._engine.begin() as conn:
            cancelled = await transitions.cancel_for_task(conn, owner, task_id, reason)
            running = await store.running_for_task(conn, owner, task_id)
        log.info("payments.cancelled_for_task", task_id=task_id, cancelled=len(cancelled))
        return Cancellation(cancelled, running)

    async def watch(self, owner: str, payment_id: str) -> AsyncIterator[PaymentRecord]:
        """The payment now and after every change, until it is final. It
        looks again when the payment's changes are announced (migration
        0004, any instance's), and every watch_poll_s regardless."""
        payment_id = validation.uuid_id("payment_id", payment_id)
        looks = follow(
            self._notices, payment_id, lambda: self.get(owner, payment_id), self._watch_poll_s
        )
        async for record in looks:
            yield record
