"""Periodic background work (sweepers, lease renewals): one round every
interval; a failed round is logged and the next one tries again."""

import asyncio
from collections.abc import Awaitable, Callable

from nodkit.logging import get_logger

log = get_logger("nodkit.background")


async def every(interval_s: float, work: Callable[[], Awaitable[object]], *, event: str) -> None:
    while True:
        await asyncio.sleep(interval_s)
        try:
            await work()
        except Exception as error:
            log.error(f"{event}.failed", exc_info=error)
