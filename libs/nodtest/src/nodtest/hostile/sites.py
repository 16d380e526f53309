"""The hostile sites on loopback, and what each received.

Every site is one aiohttp application on its own 127.0.0.x address (never
127.0.0.1, which is the services'): the person's site A, a look-alike of it
on another port (A2) and on another address (L), the attacker's B and a
card host C. Each serves the cases' pages under /c/<case>/<page>, and
counts every request it gets, whatever its path: per request, the site,
the case and page it named, and which private values it carried in which
form (nodtest.hostile.values), never the values or the request itself.

Beside them: the person's app (a webhook receiver on 127.0.0.6) and an
internal listener on 127.0.0.1 standing in for a service's /metrics,
counting the connections it accepts."""

import asyncio
import contextlib
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from urllib.parse import unquote_plus

from aiohttp import WSMsgType, web

from nodtest.hostile.values import Sighting, Watch

HOSTS = {"A": "127.0.0.2", "A2": "127.0.0.2", "B": "127.0.0.3", "C": "127.0.0.4", "L": "127.0.0.5"}
APP_HOST = "127.0.0.6"
INTERNAL_HOST = "127.0.0.1"
LINK_LOCAL = "http://169.254.169.254"


@dataclass(frozen=True)
class Received:
    """One request (or WebSocket message) a site got."""

    site: str
    case: str
    page: str
    sightings: frozenset[Sighting]


@dataclass(frozen=True)
class Visit:
    """What a page's handler knows: the sites' origins and the case's own
    path on each (`/c/<case>`), and where to note an order."""

    origins: dict[str, str]
    case: str
    site: str
    records: "Records"

    @property
    def here(self) -> str:
        return f"/c/{self.case}"

    def url(self, site: str, page: str) -> str:
        base = self.origins[site] if site in self.origins else site
        return f"{base}{self.here}/{page}"

    def order(self) -> None:
        """The site took a card for an order: a payment made to it."""
        self.records.orders[(self.case, self.site)] += 1


Handler = Callable[[web.Request, Visit], Awaitable[web.StreamResponse]]


@dataclass
class Records:
    received: list[Received] = field(default_factory=list)
    # (case, site) -> orders a site took.
    orders: Counter[tuple[str, str]] = field(default_factory=Counter)
    # The internal listener: connections accepted, requests per case.
    internal_connections: int = 0
    internal_requests: Counter[str] = field(default_factory=Counter)


def case_and_page(path: str) -> tuple[str, str]:
    parts = path.strip("/").split("/", 2)
    if len(parts) == 3 and parts[0] == "c":
        return parts[1], parts[2]
    return "", "other"


async def _raw(request: web.Request) -> str:
    """The request as text: its line (also decoded), headers and body."""
    headers = "\n".join(f"{k}: {v}" for k, v in request.headers.items())
    body = (await request.read()).decode(errors="replace")
    line = f"{request.method} {request.raw_path}\n{unquote_plus(request.raw_path)}"
    return f"{line}\n{headers}\n\n{body}"


class Site:
    def __init__(self, name: str, watch: Watch, records: Records) -> None:
        self.name = name
        self.origin = ""
        self._watch, self._records = watch, records
        self._routes: dict[tuple[str, str], Handler] = {}
        self._origins: dict[str, str] = {}
        self._runner: web.AppRunner | None = None

    def serve(self, case: str, page: str, handler: Handler) -> None:
        self._routes[(case, page)] = handler

    async def start(self, host: str) -> str:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._dispatch)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
        await self._runner.setup()
        await web.TCPSite(self._runner, host, 0).start()
        self.origin = f"http://{host}:{self._runner.addresses[0][1]}"
        return self.origin

    def know(self, origins: dict[str, str]) -> None:
        self._origins = origins

    def _note(self, case: str, page: str, text: str) -> None:
        sightings = frozenset(self._watch.find(text))
        self._records.received.append(Received(self.name, case, page, sightings))

    async def _dispatch(self, request: web.Request) -> web.StreamResponse:
        case, page = case_and_page(request.path)
        self._note(case, page, await _raw(request))
        if request.headers.get("Upgrade", "").lower() == "websocket":
            return await self._websocket(request, case)
        handler = self._routes.get((case, page))
        if handler is None:
            # A collector takes anything; an unknown page is not there.
            return web.Response(status=204 if page.startswith("collect") else 404)
        return await handler(request, Visit(self._origins, case, self.name, self._records))

    async def _websocket(self, request: web.Request, case: str) -> web.WebSocketResponse:
        socket = web.WebSocketResponse()
        await socket.prepare(request)
        async for message in socket:
            if message.type in (WSMsgType.TEXT, WSMsgType.BINARY):
                data = message.data if isinstance(message.data, str) else message.data.decode()
                self._note(case, "websocket message", data)
        return socket

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()


class App(Site):
    """The person's connected app: every webhook body it gets, per case
    (each person's account posts to /c/<case>/hook)."""

    def __init__(self, watch: Watch, records: Records) -> None:
        super().__init__("app", watch, records)

    async def _dispatch(self, request: web.Request) -> web.StreamResponse:
        case, page = case_and_page(request.path)
        self._note(case, page, await _raw(request))
        return web.json_response({"ok": True})


class InternalListener:
    """A plain TCP listener on 127.0.0.1, where a service's /metrics would
    be: it counts every connection, and answers an HTTP request with text
    holding the case's internal value (so what a page read of it carried
    can be found wherever it went)."""

    def __init__(self, records: Records, internal_values: dict[str, str]) -> None:
        self._records = records
        self._values = internal_values
        self._server: asyncio.Server | None = None
        self.origin = ""

    async def start(self) -> str:
        self._server = await asyncio.start_server(self._serve, INTERNAL_HOST, 0)
        port = self._server.sockets[0].getsockname()[1]
        self.origin = f"http://{INTERNAL_HOST}:{port}"
        return self.origin

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._records.internal_connections += 1
        try:
            async with asyncio.timeout(5):
                head = await reader.readuntil(b"\r\n\r\n")
            path = head.split(b" ", 2)[1].decode(errors="replace") if b" " in head else "/"
            case, _ = case_and_page(path)
            self._records.internal_requests[case] += 1
            body = (
                "# HELP nod_internal_token what only the inside may read\n"
                f'nod_internal_token{{value="{self._values.get(case, "unknown")}"}} 1\n'
            ).encode()
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n"
                + f"Content-Length: {len(body)}\r\n\r\n".encode()
                + body
            )
            await writer.drain()
        except (TimeoutError, asyncio.IncompleteReadError, ConnectionError, IndexError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
