"""Trace context taken from the operator's proxies only.

A request's `traceparent`, `tracestate` and `baggage` headers decide which
trace its spans join, and with tracing on the trace id is the request id
every log line of the call carries, here and in every service it calls.
Taken from anyone, they would let a caller name the request id of nod's log
lines or hang their requests on somebody else's trace. The gateway keeps
them only from the proxies the operator named (NOD_GATEWAY_TRUSTED_PROXIES),
as it does X-Forwarded-For (client_address.py); from anyone else they are
dropped and the request starts a trace of its own.
"""

from starlette.types import ASGIApp, Receive, Scope, Send

from nod_gateway.client_address import Network, trusted

TRACE_HEADERS = frozenset({b"traceparent", b"tracestate", b"baggage"})


class TraceContextFromProxiesOnly:
    """Outside OpenTelemetry's middleware: the headers are gone before it
    reads them."""

    def __init__(self, app: ASGIApp, proxies: tuple[Network, ...]) -> None:
        self.app = app
        self.proxies = proxies

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            peer = scope["client"][0] if scope.get("client") else ""
            if not trusted(peer, self.proxies):
                # ASGI header names arrive lower-cased.
                kept = [(n, v) for n, v in scope["headers"] if n not in TRACE_HEADERS]
                scope = {**scope, "headers": kept}
        await self.app(scope, receive, send)
