"""SetLimits / GetLimits: the person's optional payment limits."""

from sqlalchemy.ext.asyncio import AsyncEngine

from nod_payments.domain.limits import Limits, check_limits_request
from nod_payments.store import limits as limits_store
from nodkit.logging import get_logger

log = get_logger("nod_payments.limits")


class LimitsApp:
    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def set(
        self, owner: str, max_single: int, max_daily: int, currency: str
    ) -> Limits | None:
        limits = check_limits_request(max_single, max_daily, currency)
        async with self._engine.begin() as conn:
            if limits is None:
                await limits_store.delete_limits(conn, owner)
                log.info("limits.removed")
                return None
            stored = await limits_store.put_limits(conn, owner, limits)
        log.info("limits.set", currency=stored.currency)
        return stored

    async def get(self, owner: str) -> Limits | None:
        async with self._engine.connect() as conn:
            return await limits_store.get_limits(conn, owner)
