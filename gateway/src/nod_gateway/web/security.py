"""Headers on every answer (the build that answered among them), a request
id on every request, and the checks every form post passes: same origin,
and the session's CSRF token."""

import hmac
import uuid

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from nodkit import context, tracing
from nodkit.version import VERSION_HEADER, build_version

# No inline script or style anywhere: every script and sheet is a file
# under /static, so an injected tag can't run.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
    " connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none';"
    " object-src 'none'"
)
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=(), payment=()"),
    # Which build answered (`nod-gateway/0.1.0`), as every service's gRPC replies say.
    (VERSION_HEADER.encode(), build_version("gateway").encode()),
]


class SecurityHeaders:
    """Pure ASGI (not BaseHTTPMiddleware), so the live timeline's stream
    passes through untouched."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        # The trace's id while tracing (one id from a log line to its trace).
        token = context.request_id.set(tracing.trace_id() or uuid.uuid4().hex)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += HEADERS
                static = scope["path"] == "/static" or scope["path"].startswith("/static/")
                own = any(name.lower() == b"cache-control" for name, _ in headers)
                if not static and not own:
                    # Pages show a person's own things: no cache keeps them.
                    headers.append((b"cache-control", b"no-store"))
                message["headers"] = headers
            await send(message)

        try:
            await self.app(scope, receive, send_with_headers)
        finally:
            context.request_id.reset(token)


def same_origin(headers: Headers) -> bool:
    """A post another site's page made is refused. Browsers send
    Sec-Fetch-Site and Origin on every form post; tools that send neither
    still need the CSRF token."""
    if headers.get("sec-fetch-site") not in (None, "same-origin", "none"):
        return False
    origin = headers.get("origin")
    if origin is None or origin == "null":
        return origin is None
    host = headers.get("host", "")
    return origin.split("://", 1)[-1] == host


def tokens_match(expected: str, given: str | None) -> bool:
    return given is not None and hmac.compare_digest(expected.encode(), given.encode())
