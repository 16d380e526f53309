"""Per-call context carried in contextvars (one grpc.aio task per call)."""

import contextvars

request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("request_id", default=None)
# The person the call acts for, from the `x-nod-user` metadata; validated on use.
user: contextvars.ContextVar[str | None] = contextvars.ContextVar("user", default=None)
