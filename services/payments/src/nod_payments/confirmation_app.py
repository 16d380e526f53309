"""ConfirmPayment: the person's yes or no, used once (G5, G8).

The yes is one conditional update. When the person has limits, their limits
row is locked first and the day's total re-counted in the same transaction,
so two confirmations can't both squeeze under the daily limit. Locks are
always taken in the same order (limits row, then payment row).
"""

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from nod_payments import limits_repository as limits_repo
from nod_payments import repository as repo
from nod_payments import state_changes as changes
from nod_payments.domain import Decision, PaymentRecord, PaymentState
from nod_payments.limits import Limits, check_within_limits
from nod_payments.transitions import explain_refused_decision
from nodkit import validation
from nodkit.errors import NotFound
from nodkit.logging import get_logger

log = get_logger("nod_payments.confirmation")


class Confirmation:
    def __init__(self, engine: AsyncEngine, *, instance_id: str) -> None:
        self._engine = engine
        self._instance_id = instance_id

    async def confirm(self, owner: str, payment_id: str, decision: Decision) -> PaymentRecord:
        payment_id = validation.uuid_id("payment_id", payment_id)
        this_payment = repo.one_payment(owner, payment_id)
        async with self._engine.begin() as conn:
            limits = None
            if decision == Decision.YES:
                limits = await limits_repo.get_limits(conn, owner, lock=True)
            # Past its expiry but not swept yet: a late answer finds it EXPIRED.
            await changes.expire_overdue(conn, *this_payment, actor=f"expiry:{self._instance_id}")
            if limits is not None:
                await self._check_limits(conn, owner, payment_id, limits)
            moved = await changes.decide(conn, owner, payment_id, decision)
            if moved:
                log.info("payment.decided", payment_id=payment_id, state=moved[0].state.value)
                return moved[0]
            current = await repo.get_payment(conn, owner, payment_id)
        if current is None:
            raise NotFound("no such payment", reason="PAYMENT_NOT_FOUND")
        return explain_refused_decision(current, decision)

    async def _check_limits(
        self, conn: AsyncConnection, owner: str, payment_id: str, limits: Limits
    ) -> None:
        payment = await repo.get_payment(conn, owner, payment_id)
        if payment is None or payment.state != PaymentState.AWAITING_CONFIRMATION:
            return  # nothing to confirm: the refused update gives the answer
        spent = await limits_repo.spent_last_day(conn, owner, limits.currency)
        check_within_limits(limits, payment.amount_minor, payment.currency, spent)
