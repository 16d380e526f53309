"""The address guard's proxy on the wire, as a client that is not Chromium
could speak to it: credentials asked for, one request judged per
connection, a body framed two ways refused, and answers that name nothing
of the inside."""

import asyncio
import base64
import ipaddress
import socket

import pytest

from nod_browser.adapters.egress_proxy import EgressProxy
from nod_browser.adapters.own_addresses import own_addresses
from nod_browser.settings import BrowserSettings
from nodkit.networks import parse_networks
from nodtest.addresses import BROWSER_ALLOWED_NETWORKS, SITE_HOST


class Upstream:
    """A site on 127.0.0.2 that keeps every request head it receives."""

    def __init__(self) -> None:
        self.heads: list[bytes] = []

    async def start(self) -> "Upstream":
        self._server = await asyncio.start_server(self._accept, SITE_HOST, 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def _accept(self, reader, writer) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                self.heads.append(head)
                # An HTTP/1.1 server that keeps the connection unless told.
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nKeep-Alive: x\r\n\r\nok")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    def close(self) -> None:
        self._server.close()


@pytest.fixture
async def proxy():
    started = EgressProxy(parse_networks(BROWSER_ALLOWED_NETWORKS))
    await started.start()
    yield started
    await started.close()


@pytest.fixture
async def upstream():
    site = await Upstream().start()
    yield site
    site.close()


def credentials(proxy: EgressProxy, user: str = "s-1") -> str:
    settings = proxy.proxy_for(user)
    token = base64.b64encode(f"{user}:{settings['password']}".encode()).decode()
    return f"Proxy-Authorization: Basic {token}\r\n"


async def exchange(proxy: EgressProxy, sent: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
    writer.write(sent)
    await writer.drain()
    try:
        async with asyncio.timeout(10):
            return await reader.read()
    finally:
        writer.close()


async def test_no_or_wrong_credentials_are_asked_again(proxy, upstream):
    target = f"{SITE_HOST}:{upstream.port}"
    bare = await exchange(proxy, f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
    wrong = base64.b64encode(b"s-1:guess").decode()
    guessed = await exchange(
        proxy,
        f"CONNECT {target} HTTP/1.1\r\nProxy-Authorization: Basic {wrong}\r\n\r\n".encode(),
    )
    proxy.forget("s-1")

    for answer in (bare, guessed):
        assert answer.startswith(b"HTTP/1.1 407 ")
        assert b'Proxy-Authenticate: Basic realm="nod"' in answer
    assert upstream.heads == []


async def test_a_forgotten_session_is_let_through_no_more(proxy, upstream):
    auth = credentials(proxy, "s-gone")
    proxy.forget("s-gone")
    url = f"http://{SITE_HOST}:{upstream.port}/"

    answer = await exchange(proxy, f"GET {url} HTTP/1.1\r\n{auth}\r\n".encode())

    assert answer.startswith(b"HTTP/1.1 407 ") and upstream.heads == []


async def test_one_request_per_connection_and_the_browser_told_so(proxy, upstream):
    auth = credentials(proxy)
    url = f"http://{SITE_HOST}:{upstream.port}"
    first = f"GET {url}/a?q=1 HTTP/1.1\r\nHost: x\r\n{auth}Connection: keep-alive\r\n\r\n"
    # A second request on the same connection, to wherever: never sent on.
    second = f"GET http://127.0.0.1:9/b HTTP/1.1\r\n{auth}\r\n"

    answer = await exchange(proxy, (first + second).encode())

    assert len(upstream.heads) == 1
    sent = upstream.heads[0].decode()
    assert sent.startswith("GET /a?q=1 HTTP/1.1\r\n")
    assert "Proxy-Authorization" not in sent and "keep-alive" not in sent
    assert "Connection: close" in sent
    assert answer.startswith(b"HTTP/1.1 200 OK\r\n") and answer.endswith(b"\r\n\r\nok")
    assert b"Connection: close" in answer and b"Keep-Alive" not in answer


async def test_a_body_framed_two_ways_is_refused_before_connecting(proxy, upstream):
    auth = credentials(proxy)
    url = f"http://{SITE_HOST}:{upstream.port}/"
    smuggling = (
        f"POST {url} HTTP/1.1\r\n{auth}Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n"
        "0\r\n\r\n"
    )

    answer = await exchange(proxy, smuggling.encode())

    assert answer.startswith(b"HTTP/1.1 400 ") and upstream.heads == []


async def test_a_chunked_body_is_sent_whole_and_alone(proxy, upstream):
    auth = credentials(proxy)
    url = f"http://{SITE_HOST}:{upstream.port}/"
    body = "4\r\nwiki\r\n0\r\n\r\n"
    head = f"POST {url} HTTP/1.1\r\n{auth}Transfer-Encoding: chunked\r\n\r\n"

    answer = await exchange(proxy, f"{head}{body}GET / HTTP/1.1\r\n\r\n".encode())

    # (The stand-in reads a body as if it were a head: it keeps it whole.)
    received = b"".join(upstream.heads)
    assert answer.startswith(b"HTTP/1.1 200 OK")
    assert received.endswith(b"\r\n\r\n" + body.encode()) and b"GET /" not in received


@pytest.mark.parametrize(
    ("request_line", "status"),
    [
        ("CONNECT 127.0.0.1:5432 HTTP/1.1", b"403"),
        ("GET http://169.254.169.254/latest/meta-data/ HTTP/1.1", b"403"),
        ("CONNECT [::1]:443 HTTP/1.1", b"403"),
        ("GET http://10.0.0.8:8080/ HTTP/1.1", b"403"),
        ("GET http://nothing.invalid/ HTTP/1.1", b"502"),
        ("GET https://example.com/ HTTP/1.1", b"400"),
        ("GET /relative HTTP/1.1", b"400"),
    ],
)
async def test_refusals_name_nothing_of_the_inside(proxy, request_line, status):
    answer = await exchange(proxy, f"{request_line}\r\n{credentials(proxy)}\r\n".encode())

    assert answer.split(b" ")[1] == status
    body = answer.partition(b"\r\n\r\n")[2]
    for inside in (b"127.0.0.1", b"169.254", b"10.0.0", b"::1", b"nothing.invalid", b"5432"):
        assert inside not in body


class ClaimsName:
    async def resolve(self, host: str, port: int):
        if host == "claims.test":
            return [ipaddress.ip_address("10.20.30.40")]
        raise socket.gaierror(socket.EAI_NONAME, "no such name")


async def test_nods_own_addresses_are_every_service_address_the_runner_knows(service_token):
    settings = BrowserSettings(
        service_token=service_token,
        listen="0.0.0.0:50054",
        metrics_listen="192.0.2.7:52054",
        claims_addr="dns:///claims.test:50051,198.51.100.9:50051",
        database_url="postgresql+psycopg://nod@203.0.113.5:5432/nod",
    )

    own = await own_addresses(settings, ClaimsName())

    wanted = ["127.0.0.1", "::1", "192.0.2.7", "10.20.30.40", "198.51.100.9", "203.0.113.5"]
    assert {ipaddress.ip_address(a) for a in wanted} <= own
    assert not any(address.is_unspecified for address in own)
