"""Reading payments, watching one, and Stop (CancelForTask, G11)."""

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncEngine

from nod_payments import repository as repo
from nod_payments import state_changes as changes
from nod_payments.domain import PaymentRecord, PaymentState
from nodkit import validation
from nodkit.errors import NotFound
from nodkit.logging import get_logger

log = get_logger("nod_payments.payments")


@dataclass(frozen=True)
class Cancellation:
    cancelled: list[PaymentRecord]
    # Their card entry may already have reached the merchant: left to finish.
    left_running: list[PaymentRecord]


class Payments:
    def __init__(self, engine: AsyncEngine, *, watch_poll_s: float) -> None:
        self._engine = engine
        self._watch_poll_s = watch_poll_s

    async def get(self, owner: str, payment_id: str) -> PaymentRecord:
        payment_id = validation.uuid_id("payment_id", payment_id)
        async with self._engine.connect() as conn:
            record = await repo.get_payment(conn, owner, payment_id)
        if record is None:
            raise NotFound("no such payment", reason="PAYMENT_NOT_FOUND")
        return record

    async def list(
        self,
        owner: str,
        *,
        task_id: str | None,
        state: PaymentState | None,
        after: tuple[datetime, str] | None,
        limit: int,
    ) -> list[PaymentRecord]:
        async with self._engine.connect() as conn:
            return await repo.list_payments(
                conn, owner, task_id=task_id, state=state, after=after, limit=limit
            )

    async def events(self, owner: str, payment_id: str):
        record = await self.get(owner, payment_id)
        async with self._engine.connect() as conn:
            return await repo.list_events(conn, record.id)

    async def cancel_for_task(self, owner: str, task_id: str) -> Cancellation:
        task_id = validation.printable_id("task_id", task_id)
        async with self._engine.begin() as conn:
            cancelled = await changes.cancel_for_task(conn, owner, task_id)
            running = await repo.list_payments(
                conn, owner, task_id=task_id, state=PaymentState.RUNNING, limit=1000
            )
        log.info("payments.cancelled_for_task", task_id=task_id, cancelled=len(cancelled))
        return Cancellation(cancelled, running)

    async def watch(self, owner: str, payment_id: str) -> AsyncIterator[PaymentRecord]:
        """The payment now and after every change, until it is final."""
        last = None
        while True:
            current = await self.get(owner, payment_id)
            if current != last:
                yield current
                last = current
            if current.is_final:
                return
            await asyncio.sleep(self._watch_poll_s)
