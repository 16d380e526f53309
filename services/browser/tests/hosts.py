"""Local web servers standing in for websites on 127.0.0.2 and up (the
loopback addresses the services never use): a site an entry is for, and
another one a page may try to send the values to, which counts what
reached it and whether it carried a value it was told to look for (lengths
and counts only, never what it was)."""

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from urllib.parse import unquote_plus

from aiohttp import WSMsgType, web

SITE_HOST = "127.0.0.2"
ELSEWHERE_HOST = "127.0.0.3"


@contextlib.asynccontextmanager
async def serve_on(host: str, routes: list[web.RouteDef]) -> AsyncIterator[str]:
    """Serves `routes` on `host` (a port of its own); yields the base URL."""
    app = web.Application()
    app.add_routes(routes)
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
    await runner.setup()
    await web.TCPSite(runner, host, 0).start()
    try:
        yield f"http://{host}:{runner.addresses[0][1]}"
    finally:
        await runner.cleanup()


@dataclass
class Elsewhere:
    """Another site: it takes anything, and counts it."""

    url: str = ""
    # The values whose arrival is counted in `carried` (a test's canaries).
    looking_for: tuple[str, ...] = ()
    requests: int = 0  # every HTTP request but a WebSocket's opening
    sockets: int = 0  # WebSockets opened
    messages: int = 0  # WebSocket messages received
    carried: int = 0  # requests, openings and messages that carried one of `looking_for`
    lengths: list[int] = field(default_factory=list)

    def _arrived(self, *texts: str) -> None:
        seen = unquote_plus(" ".join(texts))
        self.carried += any(value in seen for value in self.looking_for)

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://", 1)

    @property
    def received(self) -> int:
        """What reached it that could carry a value."""
        return self.requests + self.messages

    async def handle(self, request: web.Request) -> web.StreamResponse:
        if request.headers.get("Upgrade", "").lower() == "websocket":
            return await self._socket(request)
        self.requests += 1
        body = (await request.read()).decode("utf-8", "replace")
        self.lengths.append(len(request.rel_url.query_string) + len(body))
        self._arrived(request.rel_url.query_string, body)
        return web.Response(
            text="<!doctype html><title>Elsewhere</title>",
            content_type="text/html",
            headers={"Access-Control-Allow-Origin": "*"},
        )

    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        socket = web.WebSocketResponse()
        await socket.prepare(request)
        self.sockets += 1
        self._arrived(request.rel_url.query_string)
        async for message in socket:
            if message.type in (WSMsgType.TEXT, WSMsgType.BINARY):
                self.messages += 1
                self.lengths.append(len(message.data))
                data = message.data
                self._arrived(data if isinstance(data, str) else data.decode("utf-8", "replace"))
        return socket

    def routes(self) -> list[web.RouteDef]:
        return [web.route("*", "/{tail:.*}", self.handle)]


@contextlib.asynccontextmanager
async def elsewhere_site(*looking_for: str) -> AsyncIterator[Elsewhere]:
    elsewhere = Elsewhere(looking_for=looking_for)
    async with serve_on(ELSEWHERE_HOST, elsewhere.routes()) as elsewhere.url:
        yield elsewhere
