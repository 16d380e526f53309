"""Asserting on the errors a caller sees."""

import grpc

from nodkit.client import NodRpcError


async def expect_error(
    call, code: grpc.StatusCode, *, reason: str | None = None, field: str | None = None
) -> NodRpcError:
    """Awaits `call` (a gRPC call object or coroutine) and returns the typed
    error; fails the test if the call succeeds or fails differently."""
    try:
        reply = await call
    except grpc.aio.AioRpcError as raw:
        error = NodRpcError(raw)
    else:
        raise AssertionError(f"expected {code.name}, got a reply: {reply}")
    assert error.code == code, f"expected {code.name}, got {error.code.name}: {error.message}"
    if reason is not None:
        assert error.reason == reason, f"expected reason {reason}, got {error.reason}"
    if field is not None:
        assert error.field == field, (
            f"expected field {field!r}, got {error.field!r}: {error.message}"
        )
    return error
