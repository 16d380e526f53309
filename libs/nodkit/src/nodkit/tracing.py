"""OpenTelemetry traces across every hop, exported over OTLP/gRPC when
OTEL_EXPORTER_OTLP_ENDPOINT is set and off (no SDK, no instrumentation, no
cost on the hot paths) otherwise.

What is traced: every gRPC call served and made (W3C trace context travels
in the call's metadata), the database statements (SQLAlchemy's engines; the
claims hot path names its own statement span), outgoing HTTP (the model
provider, an app's webhook) and, in the gateway, every request. A span
carries names, ids, states and timings, never a value: statements carry
their placeholders, not their parameters, and an outgoing request's address
is cut to its origin (an app's hook URL may carry a secret in its path).

The request id every log line carries is the trace id while a span is
current, so a log line leads to its trace and back.
"""

import contextlib
from collections.abc import Iterator, Mapping
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import propagate, trace
from opentelemetry.trace import Span, SpanKind

from nodkit.version import release

TRACER_NAME = "nod"

_enabled = False


def enabled() -> bool:
    return _enabled


def configure(service: str, endpoint: str | None) -> bool:
    """Sets up export for this process; a no-op without an endpoint. Called
    once by the process's entry point, before any channel or engine is made."""
    global _enabled
    if not endpoint or _enabled:
        return _enabled
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
    from opentelemetry.instrumentation.httpx import HTTPXClientInstrumentor
    from opentelemetry.instrumentation.sqlalchemy import SQLAlchemyInstrumentor
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    version = release(service)
    provider = TracerProvider(
        resource=Resource.create({"service.name": f"nod-{service}", "service.version": version})
    )
    insecure = endpoint.startswith("http://")
    provider.add_span_processor(
        BatchSpanProcessor(OTLPSpanExporter(endpoint=_without_scheme(endpoint), insecure=insecure))
    )
    trace.set_tracer_provider(provider)
    # Every engine made from now on (nodkit.db makes them through the
    # module, so the wrapped maker is the one called). The instrumentation
    # declares SQLAlchemy < 2.1 only; it hooks the engine events 2.1 keeps
    # as they were, and tests/test_traces.py shows the statements arrive.
    SQLAlchemyInstrumentor().instrument(
        tracer_provider=provider, enable_commenter=False, skip_dep_check=True
    )
    HTTPXClientInstrumentor().instrument(
        tracer_provider=provider, request_hook=_origin_only, async_request_hook=_async_origin_only
    )
    _enabled = True
    return True


def shutdown() -> None:
    """Sends what is still batched; the process is about to end."""
    provider = trace.get_tracer_provider()
    with contextlib.suppress(Exception):
        provider.shutdown()  # type: ignore[attr-defined]


def _without_scheme(endpoint: str) -> str:
    for scheme in ("http://", "https://"):
        if endpoint.startswith(scheme):
            return endpoint[len(scheme) :].rstrip("/")
    return endpoint.rstrip("/")


def _origin_only(span: Span, request: Any) -> None:
    url = request.url
    origin = f"{url.scheme.decode() if isinstance(url.scheme, bytes) else url.scheme}://"
    host = url.host.decode() if isinstance(url.host, bytes) else url.host
    port = f":{url.port}" if url.port else ""
    for attribute in ("url.full", "http.url"):
        span.set_attribute(attribute, f"{origin}{host}{port}/")


async def _async_origin_only(span: Span, request: Any) -> None:
    _origin_only(span, request)


def server_interceptors() -> list[Any]:
    """Outermost on a gRPC server: the call's span is current in nod's own
    interceptor and the handler."""
    if not _enabled:
        return []
    from opentelemetry.instrumentation.grpc import aio_server_interceptor

    return [aio_server_interceptor()]


def client_interceptors() -> list[Any]:
    if not _enabled:
        return []
    from opentelemetry.instrumentation.grpc import aio_client_interceptors

    return list(aio_client_interceptors())


def trace_id() -> str | None:
    """The current trace's id as 32 hex digits, or None outside a span."""
    if not _enabled:
        return None
    context = trace.get_current_span().get_span_context()
    return format(context.trace_id, "032x") if context.is_valid else None


@contextlib.contextmanager
def span(
    name: str, attributes: Mapping[str, str | int | bool] | None = None, *, statement: bool = False
) -> Iterator[Span]:
    """A span of nod's own under the current one (nothing at all when off)."""
    if not _enabled:
        yield trace.INVALID_SPAN
        return
    tracer = trace.get_tracer(TRACER_NAME)
    kind = SpanKind.CLIENT if statement else SpanKind.INTERNAL  # a statement: a call out
    with tracer.start_as_current_span(name, kind=kind, attributes=attributes) as current:
        yield current


def traceparent() -> str | None:
    """The current trace context as a W3C traceparent, to store with work
    that continues later (a task's run joins the call that queued it)."""
    if not _enabled:
        return None
    headers: dict[str, str] = {}
    propagate.inject(headers)
    return headers.get("traceparent")


@contextlib.contextmanager
def resumed(stored: str | None) -> Iterator[None]:
    """Makes a stored traceparent current: spans started inside join its trace."""
    if not _enabled or not stored:
        yield
        return
    token = otel_context.attach(propagate.extract({"traceparent": stored}))
    try:
        yield
    finally:
        otel_context.detach(token)
