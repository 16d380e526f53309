"""ConfirmPayment: the person's yes or no, used once (G5, G8).

The yes is one conditional update. When the person has limits, their limits
row is locked first and the day's total re-counted in the same transaction,
so two confirmations can't both squeeze under the daily limit. Locks are
always taken in the same order (limits row, then payment row).
"""

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from nod_payments.domain.limits import Limits, check_within_limits
from nod_payments.domain.payments import Decision, PaymentRecord, PaymentState
from nod_payments.domain.refusals import existing, explain_refused_decision
from nod_payments.store import limits as limits_store
from nod_payments.store import payments as store
from nod_payments.store import transitions
from nodkit import faults, validation
from nodkit.logging import get_logger

log = get_logger("nod_payments.confirmation")


class Confirmation:
    def __init__(self, engine: AsyncEngine, *, instance_id: str) -> None:
        self._engine = engine
        self._instance_id = instance_id

    async def confirm(self, owner: str, payment_id: str, decision: Decision) -> PaymentRecord:
        payment_id = validation.uuid_id("payment_id", payment_id)
        async with self._engine.begin() as conn:
            limits = None
            if decision == Decision.YES:
                limits = await limits_store.get_limits(conn, owner, lock=True)
            # Past its expiry but not swept yet: a late answer finds it EXPIRED.
            await transitions.expire_overdue(
                conn, *store.one_payment(owner, payment_id), actor=f"expiry:{self._instance_id}"
            )
            if limits is not None:
                await self._check_limits(conn, owner, payment_id, limits)
            moved = await transitions.decide(conn, owner, payment_id, decision)
            if not moved:
                current = existing(await store.get_payment(conn, owner, payment_id))
        if not moved:
            return explain_refused_decision(current, decision)
        log.info("payment.decided", payment_id=payment_id, state=moved[0].state.value)
        if decision == Decision.YES:
            await faults.point("payments.yes_committed")
        return moved[0]

    async def _check_limits(
        self, conn: AsyncConnection, owner: str, payment_id: str, limits: Limits
    ) -> None:
        payment = await store.get_payment(conn, owner, payment_id)
        if payment is None or payment.state != PaymentState.AWAITING_CONFIRMATION:
            return  # nothing to confirm: the refused update gives the answer
        spent = await limits_store.spent_last_day(conn, owner, limits.currency)
        check_within_limits(limits, payment.amount_minor, payment.currency, spent)
