"""CreatePayment: checks, limits, one payment per request and one live
payment per order."""

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from nod_payments.domain.limits import check_within_limits
from nod_payments.domain.orders import order_keys
from nod_payments.domain.payments import PaymentRecord
from nod_payments.domain.repeats import check_repeat, duplicate_order
from nod_payments.domain.requests import PaymentRequest, answer_resend, check_payment_request
from nod_payments.store import limits as limits_store
from nod_payments.store import payments as store
from nodkit.logging import get_logger

log = get_logger("nod_payments.creation")


class Creation:
    def __init__(self, engine: AsyncEngine, *, confirmation_ttl_s: float) -> None:
        self._engine = engine
        self._confirmation_ttl_s = confirmation_ttl_s

    async def create(self, owner: str, request: PaymentRequest) -> PaymentRecord:
        request = check_payment_request(request)
        async with self._engine.begin() as conn:
            repeated = None
            if request.repeat_of_payment_id:
                # The payment repeated is final, so a resend gets the same answer.
                earlier = await store.get_payment(conn, owner, request.repeat_of_payment_id)
                repeated = check_repeat(earlier, request)
            keys = order_keys(request, repeated)
            ttl_s = self._confirmation_ttl_s
            record = await store.insert_payment(conn, owner, request, keys, ttl_s)
            if record is not None:
                # After the insert, so a resend answers the first payment
                # whatever the day's total is now; a refusal here rolls the
                # insert back with the transaction.
                await self._check_limits(conn, owner, request)
                log.info("payment.created", payment_id=record.id, task_id=record.task_id)
                return record
            first = await store.payment_for_request(conn, owner, request.request_id)
            if first is not None:
                log.info("payment.resent", payment_id=first.id)
                return answer_resend(first, request)
            existing = await store.live_payment_for_order(conn, owner, keys)
        log.info("payment.duplicate_order", existing=existing.id if existing else None)
        raise duplicate_order(existing, request)

    async def _check_limits(
        self, conn: AsyncConnection, owner: str, request: PaymentRequest
    ) -> None:
        limits = await limits_store.get_limits(conn, owner)
        if limits is not None:
            spent = await limits_store.spent_last_day(conn, owner, limits.currency)
            check_within_limits(limits, request.amount_minor, request.currency, spent)
