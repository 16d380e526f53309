"""The database-outage checks every service's *_database_down.py shares:
timing a call that must end within its limit, and waiting for a service's
health (as its test reads it) to change by itself."""

import time
from collections.abc import Awaitable, Callable

import grpc

from nodtest.browser import poll


async def wait_for_health(
    health_of: Callable[[], Awaitable[int]], status: int, *, timeout_s: float = 30
) -> None:
    """Until the service reports `status` by itself (nobody restarts it)."""

    async def reached() -> bool:
        return await health_of() == status

    await poll(reached, timeout_s=timeout_s, what=f"health {status}")


async def failing_within(call: Awaitable, limit_s: float) -> tuple[grpc.StatusCode, str, float]:
    """A call that must fail within `limit_s` seconds: its code, details and duration."""
    started = time.monotonic()
    try:
        reply = await call
    except grpc.aio.AioRpcError as error:
        took = time.monotonic() - started
        assert took < limit_s, f"{error.code().name} after {took:.1f} s (limit {limit_s} s)"
        return error.code(), error.details() or "", took
    raise AssertionError(f"the call succeeded during the outage: {reply}")
