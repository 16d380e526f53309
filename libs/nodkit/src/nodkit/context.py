"""Per-call context carried in contextvars (one grpc.aio task per call)."""

import asyncio
import contextvars
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("request_id", default=None)
# The person the call acts for, from the `x-nod-user` metadata; validated on use.
user: contextvars.ContextVar[str | None] = contextvars.ContextVar("user", default=None)
# The calling service, as its credential names it (nodkit.callers).
caller: contextvars.ContextVar[str | None] = contextvars.ContextVar("caller", default=None)
# When the caller stops waiting, on the event loop's clock (None: no deadline).
deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar("deadline", default=None)


def run_detached(work: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
    """Runs `work` as a task of its own, in this call's context without its
    deadline: for work that must run to its end after the caller stops waiting
    (a grant, a decision and its execution), so its database calls are bounded
    by their own limit only. The caller keeps a reference to the task."""
    copied = contextvars.copy_context()
    copied.run(deadline.set, None)
    return asyncio.get_running_loop().create_task(work, context=copied)
