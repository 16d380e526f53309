"""CreatePayment: checks, limits, and the one live payment per order."""

from sqlalchemy.ext.asyncio import AsyncEngine

from nod_payments import limits_repository as limits_repo
from nod_payments import repository as repo
from nod_payments.domain import PaymentRecord, PaymentState
from nod_payments.limits import check_within_limits
from nod_payments.orders import PaymentRequest, check_payment_request, order_key
from nod_payments.repeats import check_repeat, duplicate_order
from nodkit.logging import get_logger

log = get_logger("nod_payments.creation")


class Creation:
    def __init__(self, engine: AsyncEngine, *, confirmation_ttl_s: float) -> None:
        self._engine = engine
        self._confirmation_ttl_s = confirmation_ttl_s

    async def create(self, owner: str, request: PaymentRequest) -> PaymentRecord:
        request = check_payment_request(request)
        key = order_key(request, request.repeat_of_payment_id)
        async with self._engine.begin() as conn:
            if request.repeat_of_payment_id:
                earlier = await repo.get_payment(conn, owner, request.repeat_of_payment_id)
                check_repeat(earlier, request)
            limits = await limits_repo.get_limits(conn, owner)
            if limits is not None:
                spent = await limits_repo.spent_last_day(conn, owner, limits.currency)
                check_within_limits(limits, request.amount_minor, request.currency, spent)
            record = await repo.insert_payment(conn, owner, request, key, self._confirmation_ttl_s)
            if record is not None:
                await repo.add_event(
                    conn, record.id, actor=owner, to_state=PaymentState.AWAITING_CONFIRMATION
                )
                log.info("payment.created", payment_id=record.id, task_id=record.task_id)
                return record
            existing = await repo.live_payment_for_order(conn, owner, key)
        log.info("payment.duplicate_order", existing=existing.id if existing else None)
        raise duplicate_order(existing, request)
