"""Every request counted by route template, method and status, with its
duration (nodkit.metrics: nod_http_requests_total and
nod_http_request_duration_seconds), and logged as one structured line,
`http.request` (uvicorn's own access line, a sentence, is off): a static
file's at DEBUG, everything else at INFO.

The route's template (`/tasks/{task_id}`), never the path a person asked
for: ids in label values would make a series per task and put ids where
anyone reading the metrics sees them. A path no route matches counts as
`unmatched`; the static files as `/static`. Pure ASGI, like SecurityHeaders,
so the live timeline's stream passes through untouched."""

import time

from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from nodkit.logging import get_logger
from nodkit.metrics import http

log = get_logger("nod_gateway.access")

UNMATCHED = "unmatched"
STATIC = "/static"
# Anything else a client may send as a method counts as this.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


class RequestMetrics:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500  # an exception that escapes: the server answers 500

        async def send_and_note(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_and_note)
        finally:
            took = time.perf_counter() - started
            method = scope["method"] if scope["method"] in METHODS else "OTHER"
            route = route_of(scope)
            http.observe(route, method, status, took)
            line = log.debug if route == STATIC else log.info
            # The template, never the path: no ids or query strings in the log.
            line(
                "http.request",
                route=route,
                method=method,
                status=status,
                duration_ms=round(took * 1000, 2),
            )


def route_of(scope: Scope) -> str:
    """The matched route's template, as the router left it in the scope."""
    route = scope.get("route")
    if isinstance(route, Route):
        return route.path
    path = scope.get("path", "")
    if path == STATIC or path.startswith(STATIC + "/"):
        return STATIC
    return UNMATCHED
