"""Per-call context carried in contextvars (one grpc.aio task per call)."""

import contextvars

request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("request_id", default=None)
# The person the call acts for, from the `x-nod-user` metadata; validated on use.
user: contextvars.ContextVar[str | None] = contextvars.ContextVar("user", default=None)
# The calling service, as its credential names it (nodkit.callers).
caller: contextvars.ContextVar[str | None] = contextvars.ContextVar("caller", default=None)
# When the caller stops waiting, on the event loop's clock (None: no deadline).
deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar("deadline", default=None)


def detached_context() -> contextvars.Context:
    """This call's context without its deadline: for work that must run to
    its end after the caller stops waiting (a grant, a decided action's
    execution), so its database calls are bounded by their own limit only."""
    copied = contextvars.copy_context()
    copied.run(deadline.set, None)
    return copied
