"""The server interceptor chain, in one pass per call:

request id -> readiness gate -> service-token check -> `x-nod-user` identity
-> the handler -> typed errors mapped to statuses -> one structured access
log line (through the redactor).

Health and reflection stay open: probes carry no token and they reveal no data.
"""

import asyncio
import hmac
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable

import grpc
from pydantic import SecretStr

from nodkit import context
from nodkit.errors import DomainError, Unauthenticated, Unavailable
from nodkit.logging import get_logger
from nodkit.status import status_for_domain_error, status_for_exception

log = get_logger("nodkit.rpc")

OPEN_METHOD_PREFIXES = ("/grpc.health.v1.Health/", "/grpc.reflection.")


class Readiness:
    """Business calls are refused until the boot reconcile has run, so
    nothing new can start while this instance is still settling its records."""

    def __init__(self) -> None:
        self.ready = False


class NodServerInterceptor(grpc.aio.ServerInterceptor):
    def __init__(self, *, service: str, token: SecretStr, readiness: Readiness) -> None:
        self._domain = f"nod.{service}"
        self._expected = f"Bearer {token.get_secret_value()}".encode()
        self._readiness = readiness

    async def intercept_service(self, continuation, handler_call_details):
        handler = await continuation(handler_call_details)
        method = handler_call_details.method
        if handler is None or method.startswith(OPEN_METHOD_PREFIXES):
            return handler
        if handler.unary_unary is not None:
            return grpc.unary_unary_rpc_method_handler(
                self._wrap_unary(method, handler.unary_unary),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        if handler.unary_stream is not None:
            return grpc.unary_stream_rpc_method_handler(
                self._wrap_stream(method, handler.unary_stream),
                request_deserializer=handler.request_deserializer,
                response_serializer=handler.response_serializer,
            )
        return handler  # nod has no client-streaming calls

    def _admit(self, call: grpc.aio.ServicerContext) -> None:
        metadata = {k: v for k, v in call.invocation_metadata() or () if isinstance(v, str)}
        request_id = metadata.get("x-request-id") or uuid.uuid4().hex
        context.request_id.set(request_id[:64])
        context.user.set(metadata.get("x-nod-user"))
        if not self._readiness.ready:
            raise Unavailable("the service is starting; nothing was done", reason="NOT_READY")
        presented = metadata.get("authorization", "").encode()
        if not hmac.compare_digest(presented, self._expected):
            raise Unauthenticated("missing or wrong service token", reason="BAD_SERVICE_TOKEN")

    def _status_for(self, error: BaseException) -> grpc.Status:
        if isinstance(error, DomainError):
            return status_for_domain_error(error, self._domain)
        log.error("rpc.unhandled_error", exc_info=error)
        return status_for_exception(error, self._domain)

    def _wrap_unary(self, method: str, behavior: Callable[..., Awaitable]):
        async def wrapped(request, call: grpc.aio.ServicerContext):
            started = time.perf_counter()
            outcome = "OK"
            try:
                self._admit(call)
                return await behavior(request, call)
            except (asyncio.CancelledError, grpc.aio.AbortError):
                outcome = "CANCELLED"
                raise
            except Exception as error:  # noqa: BLE001 - mapped, never leaked
                status = self._status_for(error)
                outcome = status.code.name
                await call.abort(status.code, status.details, status.trailing_metadata)
            finally:
                _log_call(method, outcome, started)

        return wrapped

    def _wrap_stream(self, method: str, behavior: Callable[..., AsyncIterator]):
        async def wrapped(request, call: grpc.aio.ServicerContext):
            started = time.perf_counter()
            outcome = "OK"
            try:
                self._admit(call)
                async for reply in behavior(request, call):
                    yield reply
            except (asyncio.CancelledError, grpc.aio.AbortError):
                outcome = "CANCELLED"
                raise
            except Exception as error:  # noqa: BLE001 - mapped, never leaked
                status = self._status_for(error)
                outcome = status.code.name
                await call.abort(status.code, status.details, status.trailing_metadata)
            finally:
                _log_call(method, outcome, started)

        return wrapped


def _log_call(method: str, outcome: str, started: float) -> None:
    log.info(
        "rpc.call",
        method=method,
        status=outcome,
        user=context.user.get(),
        duration_ms=round((time.perf_counter() - started) * 1000, 2),
    )
