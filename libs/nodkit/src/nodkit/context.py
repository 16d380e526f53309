"""Per-call context carried in contextvars (one grpc.aio task per call)."""

import contextvars

request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("request_id", default=None)
# The person the call acts for, from the `x-nod-user` metadata; validated on use.
user: contextvars.ContextVar[str | None] = contextvars.ContextVar("user", default=None)
# The calling service, as its credential names it (nodkit.callers).
caller: contextvars.ContextVar[str | None] = contextvars.ContextVar("caller", default=None)
# When the caller stops waiting, on the event loop's clock (None: no deadline).
deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar("deadline", default=None)
