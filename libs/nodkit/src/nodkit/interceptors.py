"""The server interceptor chain, in one pass per call:

the build version in the reply's initial metadata -> request id -> readiness
gate -> the caller's credential (its certificate under mutual TLS, else its
token) and its allow-list (nodkit.callers) -> `x-nod-user` identity -> the
request's text checked (nodkit.request_checks) -> the handler -> typed
errors mapped to statuses -> the access log (through the redactor).

Health and reflection stay open: probes carry no token and they reveal no
data. Their replies carry the build version too, so an operator can read it
with nothing but a health check.
"""

import asyncio
import inspect
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable

import grpc

from nodkit import context, tracing
from nodkit.callers import Callers
from nodkit.errors import DomainError, PermissionDenied, Unavailable
from nodkit.logging import get_logger
from nodkit.metrics import rpc
from nodkit.request_checks import check_request, readable
from nodkit.status import status_for_domain_error, status_for_exception
from nodkit.tls import caller_certificate_name

log = get_logger("nodkit.rpc")

OPEN_METHOD_PREFIXES = ("/grpc.health.v1.Health/", "/grpc.reflection.")
Metadata = tuple[tuple[str, str], ...]
# Calls slower than this are logged at INFO; every other call at DEBUG.
SLOW_CALL_MS = 500.0


class Readiness:
    """Business calls are refused until the boot reconcile has run, so
    nothing new can start while this instance is still settling its records."""

    def __init__(self) -> None:
        self.ready = False


class NodServerInterceptor(grpc.aio.ServerInterceptor):
    def __init__(
        self,
        *,
        service: str,
        callers: Callers,
        readiness: Readiness,
        certificates: bool = False,
        version: Metadata = (),
    ) -> None:
        """`certificates`: mutual TLS, every caller's certificate names it.
        `version`: sent as the initial metadata of every reply."""
        self._domain = f"nod.{service}"
        self._callers = callers
        self._readiness = readiness
        self._certificates = certificates
        self._version = version

    async def intercept_service(self, continuation, handler_call_details):
        handler = await continuation(handler_call_details)
        method = handler_call_details.method
        if handler is None:
            return handler
        if method.startswith(OPEN_METHOD_PREFIXES):
            return _with_initial_metadata(handler, self._version)
        if handler.unary_unary is not None:
            return grpc.unary_unary_rpc_method_handler(
                self._wrap_unary(method, handler.unary_unary),
                request_deserializer=readable(handler.request_deserializer),
                response_serializer=handler.response_serializer,
            )
        if handler.unary_stream is not None:
            return grpc.unary_stream_rpc_method_handler(
                self._wrap_stream(method, handler.unary_stream),
                request_deserializer=readable(handler.request_deserializer),
                response_serializer=handler.response_serializer,
            )
        return handler  # nod has no client-streaming calls

    def _admit(self, method: str, call: grpc.aio.ServicerContext) -> None:
        metadata = {k: v for k, v in call.invocation_metadata() or () if isinstance(v, str)}
        # The trace's id while tracing; else a caller's id is carried on and
        # a fresh one needs only to be unique.
        request_id = tracing.trace_id() or metadata.get("x-request-id") or os.urandom(16).hex()
        context.request_id.set(request_id[:64])
        context.user.set(metadata.get("x-nod-user"))
        context.deadline.set(_deadline_of(call))
        if not self._readiness.ready:
            raise Unavailable("the service is starting; nothing was done", reason="NOT_READY")
        certificate = caller_certificate_name(call) if self._certificates else None
        caller = self._callers.identify(metadata.get("authorization", ""), certificate)
        context.caller.set(caller)
        if not self._callers.may_call(caller, method):
            raise PermissionDenied(
                f"the {caller} service may not call {method}", reason="CALLER_NOT_ALLOWED"
            )

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
                await call.send_initial_metadata(self._version)
                self._admit(method, call)
                check_request(request)
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
                await call.send_initial_metadata(self._version)
                self._admit(method, call)
                check_request(request)
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


def _with_initial_metadata(handler: grpc.RpcMethodHandler, metadata: Metadata):
    """An open method's handler (health, reflection) that sends `metadata`
    first and is otherwise untouched."""
    if handler.unary_unary is not None:
        make = grpc.unary_unary_rpc_method_handler
        behavior = handler.unary_unary
    elif handler.unary_stream is not None:
        make = grpc.unary_stream_rpc_method_handler
        behavior = handler.unary_stream
    elif handler.stream_stream is not None:
        make = grpc.stream_stream_rpc_method_handler
        behavior = handler.stream_stream
    else:
        return handler
    if inspect.isasyncgenfunction(behavior):

        async def replies(request, call):
            await call.send_initial_metadata(metadata)
            async for reply in behavior(request, call):
                yield reply

        wrapped: Callable = replies
    else:  # a coroutine: one reply, or replies written with call.write (health's Watch)

        async def reply(request, call):
            await call.send_initial_metadata(metadata)
            return await behavior(request, call)

        wrapped = reply
    return make(wrapped, handler.request_deserializer, handler.response_serializer)


def _deadline_of(call: grpc.aio.ServicerContext) -> float | None:
    """The caller's deadline on this loop's clock, or None without one."""
    remaining = call.time_remaining()
    if remaining is None:
        return None
    return asyncio.get_running_loop().time() + remaining


def _log_call(method: str, outcome: str, started: float) -> None:
    seconds = time.perf_counter() - started
    rpc.observe(method, outcome, seconds)
    duration_ms = round(seconds * 1000, 2)
    slow_or_failed = outcome != "OK" or duration_ms >= SLOW_CALL_MS
    (log.info if slow_or_failed else log.debug)(
        "rpc.call",
        method=method,
        status=outcome,
        user=context.user.get(),
        caller=context.caller.get(),
        duration_ms=duration_ms,
    )
