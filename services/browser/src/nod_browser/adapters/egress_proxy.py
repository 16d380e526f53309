"""The browser's address guard: an HTTP proxy inside the runner that every
request of every session goes through (Stripe's Smokescreen, small).

Chromium is told to send everything through it, loopback included
(`<-loopback>`), and so is Playwright's own HTTP client (the request guard's
route.fetch). For each request the proxy resolves the host once, judges every
address it has (nodkit.networks: public only, unless NOD_BROWSER_ALLOWED_NETWORKS
allows the network; nod's own addresses never), and connects to one of the
very addresses it judged: a name that answers differently a moment later
(DNS rebinding) can't slip another address in between. Chromium resolves
nothing itself while it uses a proxy.

Two kinds of request come in: CONNECT host:port (https, ws and wss, and
everything Playwright's client sends), answered by a tunnel to the checked
address; and an absolute-form plain-http request (GET http://host/path),
forwarded as one request on an upstream connection of its own, after which
both connections close. One request per connection keeps the judgement and
the connection one thing: a keep-alive connection to a proxy may carry its
next request to another host, which a forwarder that passes bytes through
would send down the first host's connection unjudged. So the forwarder
reads the request's head and exactly its body, answers with the response
head rewritten to `Connection: close`, and never passes on a byte beyond
that request. Plain http is rare, and a new connection to a site costs a
millisecond or so (bench/egress_bench.py).

The proxy listens on 127.0.0.1 only and asks for credentials made anew each
time it starts (Proxy-Authorization, Basic): one user name per session (so
a refusal names its session) and one password per start, known only to
this process and the Chromium it drives.

A refusal is answered 403 with a short body that names nothing of the
inside, logged (`egress.refused`: host, rule, session; never a path or a
query) and counted (nod_browser_egress_refused, by rule).
"""

import asyncio
import base64
import binascii
import hmac
import ipaddress
import secrets
import socket
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol
from urllib.parse import urlsplit

from playwright.async_api import ProxySettings

from nodkit import metrics
from nodkit.logging import get_logger
from nodkit.networks import Address, Network, Refusal, refusal

log = get_logger("nod_browser.egress")

# A request's or an answer's head larger than this is refused: no site needs more.
HEAD_LIMIT = 64 * 1024
# Chromium sends a request's head at once; a connection that doesn't is let go.
HEAD_TIMEOUT_S = 30.0
CHUNK = 64 * 1024
# Headers about one connection, which a forwarder must not pass on.
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "upgrade",
    }
)
# The user name of what Chromium sends outside every session (its default context).
RUNNER = "runner"

REFUSED_TEXT = b"This address is not open to the browser.\n"
# Marks the guard's own refusal, so a navigation can say it was refused
# rather than show this text as the page (a site sending it refuses itself).
REFUSED_HEADER = "X-Nod-Egress"
REFUSED_MARK = "refused"
NOT_FOUND_TEXT = b"This site's address could not be found.\n"
UNREACHABLE_TEXT = b"This site could not be reached.\n"


class Resolver(Protocol):
    """Every address a host has now. Tests replace it to play names (a name
    that answers one address, then another)."""

    async def resolve(self, host: str, port: int) -> list[Address]: ...


class SystemResolver:
    async def resolve(self, host: str, port: int) -> list[Address]:
        loop = asyncio.get_running_loop()
        found = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        return list(dict.fromkeys(ipaddress.ip_address(info[4][0]) for info in found))


class _BadRequest(Exception):
    pass


class _Refused(Exception):
    def __init__(self, rule: Refusal) -> None:
        self.rule = rule


class _NotFound(Exception):
    pass


@dataclass(frozen=True)
class _Head:
    method: str
    target: str
    version: str
    headers: list[tuple[str, str]]

    def values(self, name: str) -> list[str]:
        return [value for key, value in self.headers if key.lower() == name]


def _parse_head(raw: bytes) -> _Head:
    lines = raw.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise _BadRequest()
    headers = []
    for line in lines[1:]:
        if not line:
            continue
        name, colon, value = line.partition(":")
        if not colon or not name or name != name.strip():
            raise _BadRequest()
        headers.append((name, value.strip()))
    return _Head(parts[0], parts[1], parts[2], headers)


def _answer(status: str, body: bytes = b"", extra: str = "") -> bytes:
    return (
        f"HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n{extra}\r\n"
    ).encode() + body


def _host_and_port(authority: str, default_port: int | None) -> tuple[str, int]:
    try:
        parts = urlsplit(f"//{authority}")
        host, port = parts.hostname, parts.port or default_port
    except ValueError:
        raise _BadRequest() from None
    if not host or port is None or parts.username is not None:
        raise _BadRequest()
    return host, port


def _without_hop_by_hop(headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
    named = {
        token.strip().lower()
        for key, value in headers
        if key.lower() == "connection"
        for token in value.split(",")
    }
    return [(k, v) for k, v in headers if k.lower() not in HOP_BY_HOP | named]


def _closing_answer_head(raw: bytes) -> bytes:
    """The site's answer head, told to the browser as the connection's last."""
    lines = raw.decode("latin-1").split("\r\n")
    status, fields = lines[0], [line for line in lines[1:] if line]
    pairs = [(name, value) for name, _, value in (f.partition(":") for f in fields)]
    kept = _without_hop_by_hop(pairs)
    return "\r\n".join(
        [status, *(f"{k}:{v}" for k, v in kept), "Connection: close", "", ""]
    ).encode("latin-1")


class EgressProxy:
    def __init__(
        self,
        allowed: Sequence[Network],
        *,
        never: Collection[Address] = (),
        resolver: Resolver | None = None,
        connect_timeout_s: float = 10.0,
    ) -> None:
        self._allowed = tuple(allowed)
        self._never = frozenset(never)
        self._resolver = resolver or SystemResolver()
        self._connect_timeout_s = connect_timeout_s
        self._password = ""
        self._users: set[str] = set()
        self._server: asyncio.Server | None = None
        self._handlers: set[asyncio.Task] = set()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the egress proxy is not started")
        return self._server.sockets[0].getsockname()[1]

    async def start(self) -> None:
        self._password = secrets.token_urlsafe(24)
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, limit=HEAD_LIMIT)
        log.info("egress.started", port=self.port)

    def proxy_for(self, user: str = RUNNER) -> ProxySettings:
        """Playwright's proxy settings for one session (its id) or the runner."""
        self._users.add(user)
        return ProxySettings(
            server=f"http://127.0.0.1:{self.port}",
            # Chromium leaves loopback out of any proxy unless told to subtract that rule.
            bypass="<-loopback>",
            username=user,
            password=self._password,
        )

    def forget(self, user: str) -> None:
        self._users.discard(user)

    async def probe(self) -> None:
        """Raises unless the proxy takes connections (health: NOT_SERVING)."""
        if self._server is None or not self._server.is_serving():
            raise ConnectionError("the egress proxy is not serving")
        _, writer = await asyncio.open_connection("127.0.0.1", self.port)
        writer.close()

    async def close(self) -> None:
        if self._server is None:
            return
        self._server.close()
        for task in list(self._handlers):
            task.cancel()
        if self._handlers:
            await asyncio.wait(list(self._handlers), timeout=5)
        await self._server.wait_closed()

    # The connection's life.

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        try:
            await self._one_request(reader, writer)
        except (
            ConnectionError,
            OSError,
            asyncio.IncompleteReadError,
            asyncio.LimitOverrunError,
            _BadRequest,
        ):
            pass  # a side went away or broke the framing mid-way: the connection ends
        finally:
            self._handlers.discard(task)
            writer.close()

    async def _one_request(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        try:
            async with asyncio.timeout(HEAD_TIMEOUT_S):
                raw = await reader.readuntil(b"\r\n\r\n")
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            return
        try:
            head = _parse_head(raw)
            user = self._user(head)
            if user is None:
                writer.write(_answer("407 Proxy Authentication Required", extra=_CHALLENGE))
                return
            if head.method == "CONNECT":
                host, port = _host_and_port(head.target, None)
            else:
                url = urlsplit(head.target)
                if url.scheme != "http":
                    raise _BadRequest()
                host, port = _host_and_port(url.netloc, 80)
                _framing(head)
            upstream = await self._connect(host, port, user)
        except _BadRequest:
            writer.write(_answer("400 Bad Request"))
            return
        except _Refused:
            refused_mark = f"{REFUSED_HEADER}: {REFUSED_MARK}\r\n"
            writer.write(_answer("403 Forbidden", REFUSED_TEXT, refused_mark))
            return
        except _NotFound:
            writer.write(_answer("502 Bad Gateway", NOT_FOUND_TEXT))
            return
        except (TimeoutError, OSError):
            writer.write(_answer("502 Bad Gateway", UNREACHABLE_TEXT))
            return
        up_reader, up_writer = upstream
        try:
            if head.method == "CONNECT":
                writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
                await _splice(reader, writer, up_reader, up_writer)
            else:
                await _forward_one(head, reader, writer, up_reader, up_writer)
        finally:
            up_writer.close()

    def _user(self, head: _Head) -> str | None:
        for value in head.values("proxy-authorization"):
            scheme, _, encoded = value.partition(" ")
            if scheme.lower() != "basic":
                continue
            try:
                user, _, password = base64.b64decode(encoded, validate=True).decode().partition(":")
            except (binascii.Error, UnicodeDecodeError):
                continue
            good = hmac.compare_digest(password.encode(), self._password.encode())
            if good and user in self._users:
                return user
        return None

    async def _connect(
        self, host: str, port: int, user: str
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        async with asyncio.timeout(self._connect_timeout_s):
            addresses = await self._addresses(host, port)
            for address in addresses:
                if rule := refusal(address, self._allowed, self._never):
                    metrics.EGRESS_REFUSED.labels(rule.reason).inc()
                    about = {"session_id": user} if user != RUNNER else {}
                    log.warning("egress.refused", host=host, port=port, rule=rule.reason, **about)
                    raise _Refused(rule)
            failure: OSError | None = None
            for address in addresses:
                try:
                    return await asyncio.open_connection(str(address), port, limit=HEAD_LIMIT)
                except OSError as error:
                    failure = error
            assert failure is not None
            raise failure

    async def _addresses(self, host: str, port: int) -> list[Address]:
        try:
            return [ipaddress.ip_address(host)]
        except ValueError:
            pass
        try:
            found = await self._resolver.resolve(host, port)
        except (OSError, UnicodeError):
            raise _NotFound() from None
        if not found:
            raise _NotFound()
        return found


_CHALLENGE = 'Proxy-Authenticate: Basic realm="nod"\r\n'


async def _copy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    while data := await reader.read(CHUNK):
        writer.write(data)
        await writer.drain()


async def _first_ends(*work) -> None:
    """Runs the copies until one ends (a side closed): then the connection is over."""
    tasks = [asyncio.ensure_future(w) for w in work]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _splice(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    up_reader: asyncio.StreamReader,
    up_writer: asyncio.StreamWriter,
) -> None:
    await _first_ends(_copy(reader, up_writer), _copy(up_reader, writer))


async def _forward_one(
    head: _Head,
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    up_reader: asyncio.StreamReader,
    up_writer: asyncio.StreamWriter,
) -> None:
    url = urlsplit(head.target)
    path = (url.path or "/") + (f"?{url.query}" if url.query else "")
    headers = _without_hop_by_hop(head.headers)
    lines = [f"{head.method} {path} {head.version}", *(f"{k}: {v}" for k, v in headers)]
    up_writer.write(("\r\n".join([*lines, "Connection: close", "", ""])).encode("latin-1"))
    await _send_body(head, reader, up_writer)
    answer_head = await up_reader.readuntil(b"\r\n\r\n")
    writer.write(_closing_answer_head(answer_head))
    # The browser was told this connection ends with the answer: anything it
    # sends on it now is no request of this one's, and ends it.
    await _first_ends(_copy(up_reader, writer), reader.read(1))


async def _send_body(
    head: _Head, reader: asyncio.StreamReader, up_writer: asyncio.StreamWriter
) -> None:
    """Exactly the request's body, as framed."""
    length = _framing(head)
    if length == "chunked":
        while True:
            size_line = await reader.readuntil(b"\r\n")
            up_writer.write(size_line)
            try:
                size = int(size_line.split(b";")[0], 16)
            except ValueError:
                raise _BadRequest() from None
            if size == 0:
                while (trailer := await reader.readuntil(b"\r\n")) != b"\r\n":
                    up_writer.write(trailer)
                up_writer.write(b"\r\n")
                break
            await _copy_exactly(reader, up_writer, size + 2)
    else:
        await _copy_exactly(reader, up_writer, length)
    await up_writer.drain()


def _framing(head: _Head) -> int | Literal["chunked"]:
    """How the request's body ends: after a length or with its last chunk,
    never both (a request two readers could cut in two places)."""
    lengths = set(head.values("content-length"))
    encodings = head.values("transfer-encoding")
    if encodings:
        if lengths or [e.strip().lower() for e in encodings] != ["chunked"]:
            raise _BadRequest()
        return "chunked"
    if len(lengths) > 1:
        raise _BadRequest()
    try:
        length = int(lengths.pop()) if lengths else 0
    except ValueError:
        raise _BadRequest() from None
    if length < 0:
        raise _BadRequest()
    return length


async def _copy_exactly(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, length: int
) -> None:
    while length > 0:
        data = await reader.readexactly(min(length, CHUNK))
        writer.write(data)
        await writer.drain()
        length -= len(data)
