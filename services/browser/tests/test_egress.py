"""The browser's address guard, through real Chromium and the runner's real
proxy: nothing a page does (a navigation, a redirect, a frame, a fetch, a
form's POST, a WebSocket, WebRTC) reaches loopback, link-local or nod's own
addresses; the test sites' allowed addresses (127.0.0.2 and up) work; a
name that answers an allowed address, then 127.0.0.1, can't rebind a
request; refusals are counted; health notices the guard gone.

What the inside would have received is counted by real listeners on
127.0.0.1: they must count nothing."""

import asyncio
import ipaddress
import json
import socket
from dataclasses import dataclass

import grpc
import pytest
from aiohttp import WSMsgType, web
from grpc_health.v1 import health_pb2, health_pb2_grpc

from nod.browser.v1 import browser_pb2 as pb
from nod.browser.v1 import browser_pb2_grpc
from nod_browser.adapters.egress_proxy import EgressProxy
from nod_browser.wiring import build
from nodkit import service
from nodkit.client import NodRpcError, open_channel
from nodkit.networks import parse_networks
from nodtest.addresses import BROWSER_ALLOWED_NETWORKS, SITE_HOST
from nodtest.browser import browser_open, browser_read, control_ref, poll
from nodtest.claims import put_login
from nodtest.metrics import scrape

from .conftest import browser_settings
from .test_bindings import login_page, login_request
from .test_sessions import refused

REFUSED = "This address is not open to the browser."
# "shоp.test" with a Cyrillic о, as Chromium asks for it.
LOOK_ALIKE = "xn--shp-ted.test"
METADATA = "169.254.169.254"


class Inside:
    """A listener on 127.0.0.1 standing in for a service: it counts the
    connections it accepts and answers each with a page."""

    def __init__(self) -> None:
        self.connections = 0
        self._server: asyncio.Server | None = None

    async def start(self, port: int = 0) -> "Inside":
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", port)
        return self

    @property
    def port(self) -> int:
        assert self._server is not None
        return self._server.sockets[0].getsockname()[1]

    async def _accept(self, reader, writer) -> None:
        self.connections += 1
        body = b"<title>inside</title>metrics of the inside"
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nConnection: close\r\n"
            + f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        await writer.drain()
        writer.close()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()


class Names:
    """The names the guard resolves in these tests: `shop.test` on the test
    site's address, `inside.test` on 127.0.0.1, and `rebind.test`, which
    answers the site's address, then 127.0.0.1, then the site's, ..."""

    def __init__(self) -> None:
        self.rebind_answers = 0

    async def resolve(self, host: str, port: int):
        if host in ("shop.test", LOOK_ALIKE):
            return [ipaddress.ip_address(SITE_HOST)]
        if host == "inside.test":
            return [ipaddress.ip_address("127.0.0.1")]
        if host == "rebind.test":
            self.rebind_answers += 1
            answer = SITE_HOST if self.rebind_answers % 2 else "127.0.0.1"
            return [ipaddress.ip_address(answer)]
        raise socket.gaierror(socket.EAI_NONAME, "no such name")


@pytest.fixture
async def inside():
    listener = await Inside().start()
    yield listener
    await listener.close()


def pages(inside_url: str) -> list[web.RouteDef]:
    async def html(body: str) -> web.Response:
        return web.Response(
            text=f"<!doctype html><html><body>{body}</body></html>", content_type="text/html"
        )

    async def home(request):
        return await html("<h1>The test site</h1>")

    async def to_inside(request):
        raise web.HTTPFound(inside_url)

    async def frame(request):
        return await html(f'<p>framed</p><iframe src="{inside_url}"></iframe>')

    async def popup(request):
        return await html(f"<p>a popup</p><script>window.open('{inside_url}')</script>")

    async def fetching(request):
        return await html(
            "<p id=out>waiting</p><script>"
            f"fetch('{inside_url}', {{mode: 'no-cors'}})"
            ".then(() => out.textContent = 'fetched', () => out.textContent = 'fetch failed')"
            "</script>"
        )

    async def posting(request):
        return await html(
            f'<form method=post action="{inside_url}"><input name=q value=1>'
            "<button type=submit>Send</button></form>"
        )

    async def socket_to(request):
        target = request.query["to"]
        return await html(
            "<p id=out>waiting</p><script>"
            f"const ws = new WebSocket('{target}');"
            "ws.onopen = () => ws.send('hello');"
            "ws.onmessage = (m) => out.textContent = 'echo: ' + m.data;"
            "ws.onerror = () => out.textContent = 'socket failed';"
            "</script>"
        )

    async def echo(request):
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        async for message in ws:
            if message.type == WSMsgType.TEXT:
                await ws.send_str(message.data)
        return ws

    async def same_origin_fetch(request):
        return await html(
            "<p id=out>waiting</p><script>"
            "fetch('/data').then(r => r.text())"
            ".then(t => out.textContent = 'data: ' + t, () => out.textContent = 'fetch failed')"
            "</script>"
        )

    async def data(request):
        return web.Response(text="from the site")

    async def webrtc(request):
        stun, turn = request.query["stun"], request.query["turn"]
        return await html(
            "<p id=out>waiting</p><script>"
            "const pc = new RTCPeerConnection({iceServers: ["
            f"{{urls: '{stun}'}}, {{urls: '{turn}', username: 'u', credential: 'p'}}]}});"
            "pc.createDataChannel('x');"
            "pc.createOffer().then(o => pc.setLocalDescription(o));"
            "</script>"
        )

    async def sign_in(request):
        return web.Response(text=login_page("/login"), content_type="text/html")

    return [
        web.get("/", home),
        web.get("/login", sign_in),
        web.get("/to-inside", to_inside),
        web.get("/frame", frame),
        web.get("/popup", popup),
        web.get("/fetch", fetching),
        web.get("/post", posting),
        web.get("/socket", socket_to),
        web.get("/echo", echo),
        web.get("/same-origin-fetch", same_origin_fetch),
        web.get("/data", data),
        web.get("/webrtc", webrtc),
    ]


@pytest.fixture
async def site(inside):
    """The test site on 127.0.0.2, its pages pointing at `inside`."""
    app = web.Application()
    app.add_routes(pages(f"http://127.0.0.1:{inside.port}/"))
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
    await runner.setup()
    await web.TCPSite(runner, SITE_HOST, 0).start()
    yield Site(f"http://{SITE_HOST}:{runner.addresses[0][1]}")
    await runner.cleanup()


@dataclass(frozen=True)
class Site:
    url: str

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])


@pytest.fixture
async def guarded(claims_server, service_token, browser_chromium, log_tee):
    """Starts a runner of the test's own (the names of `Names`, metrics on)."""
    started = []

    async def start(names: Names | None = None, **overrides):
        settings = browser_settings(
            claims_server, service_token, metrics_listen="127.0.0.1:0", **overrides
        )
        built = await build(settings, chromium=browser_chromium, resolver=names or Names())
        running = await service.start(built, settings, listen="127.0.0.1:0")
        channel = open_channel(running.address)
        started.append((running, channel))
        return browser_pb2_grpc.BrowserServiceStub(channel), running

    yield start
    for running, channel in reversed(started):
        await channel.close()
        await running.stop(0)


def refusals(log_tee, session_id: str) -> list[dict]:
    lines = [json.loads(line) for line in log_tee.lines if '"egress.refused"' in line]
    return [line for line in lines if line.get("session_id") == session_id]


async def goto(stub, meta, session_id: str, url: str) -> pb.Page:
    request = pb.NavigateRequest(session_id=session_id, url=url)
    return (await stub.Navigate(request, metadata=meta)).page


async def refused_navigation(stub, meta, session_id: str, url: str) -> None:
    """The guard's refusal is the navigation's answer, not a page to read."""
    with pytest.raises(grpc.aio.AioRpcError) as failure:
        await goto(stub, meta, session_id, url)
    error = NodRpcError(failure.value)
    assert error.code == grpc.StatusCode.FAILED_PRECONDITION
    assert error.reason == "ADDRESS_NOT_ALLOWED"
    assert "private network" in error.message
    left_on = await browser_read(stub, meta, session_id)
    assert left_on.url == "about:blank" and REFUSED not in left_on.text


async def text_becomes(stub, meta, session_id: str, *wanted: str) -> str:
    async def shown():
        text = (await browser_read(stub, meta, session_id)).text
        return text if any(w in text for w in wanted) else None

    return await poll(shown, timeout_s=15, what=f"the page to say one of {wanted}")


async def test_loopback_by_address_name_and_redirect_is_refused(
    guarded, as_person, inside, site, log_tee
):
    stub, _ = await guarded()
    session_id, _ = await browser_open(stub, as_person)
    await refused_navigation(stub, as_person, session_id, f"http://127.0.0.1:{inside.port}/")
    await refused_navigation(stub, as_person, session_id, f"http://inside.test:{inside.port}/")
    await refused_navigation(stub, as_person, session_id, f"{site.url}/to-inside")
    assert "inside" not in (await browser_read(stub, as_person, session_id)).text

    assert inside.connections == 0
    refused = refusals(log_tee, session_id)
    assert [(r["host"], r["rule"]) for r in refused] == [
        ("127.0.0.1", "own"),
        ("inside.test", "own"),
        ("127.0.0.1", "own"),
    ]
    # The log names the host, never the address's path or query.
    assert all("to-inside" not in json.dumps(r) for r in refused)


async def test_https_to_loopback_is_refused(guarded, as_person, inside, log_tee):
    stub, _ = await guarded()
    session_id, _ = await browser_open(stub, as_person)

    with pytest.raises(grpc.aio.AioRpcError) as failure:
        await goto(stub, as_person, session_id, f"https://127.0.0.1:{inside.port}/")

    assert NodRpcError(failure.value).reason == "NAVIGATION_FAILED"
    assert [r["rule"] for r in refusals(log_tee, session_id)] == ["own"]
    assert inside.connections == 0


async def test_a_frame_a_popup_a_fetch_and_a_websocket_to_loopback_are_refused(
    guarded, as_person, inside, site, log_tee
):
    stub, _ = await guarded()
    session_id, _ = await browser_open(stub, as_person, f"{site.url}/frame")
    await goto(stub, as_person, session_id, f"{site.url}/popup")
    await poll(lambda: len(refusals(log_tee, session_id)) >= 2, what="the popup's refusal")
    await goto(stub, as_person, session_id, f"{site.url}/fetch")
    await text_becomes(stub, as_person, session_id, "fetch failed", "fetched")
    await goto(stub, as_person, session_id, f"{site.url}/socket?to=ws://127.0.0.1:{inside.port}/")
    shown = await text_becomes(stub, as_person, session_id, "socket failed", "echo")

    assert "socket failed" in shown
    await poll(lambda: len(refusals(log_tee, session_id)) >= 4, what="four refusals")
    assert inside.connections == 0


async def test_a_form_post_to_loopback_is_refused(guarded, as_person, inside, site, log_tee):
    """The request guard sends a POST with Playwright's own client: that
    goes through the address guard too."""
    stub, _ = await guarded()
    session_id, page = await browser_open(stub, as_person, f"{site.url}/post")
    click = pb.ClickRequest(session_id=session_id, target=control_ref(page, "Send"))

    await stub.Click(click, metadata=as_person)

    await poll(lambda: refusals(log_tee, session_id), what="the POST's refusal")
    assert inside.connections == 0
    assert "metrics of the inside" not in (await browser_read(stub, as_person, session_id)).text


async def test_link_local_metadata_is_refused_without_connecting(guarded, as_person, log_tee):
    # Connecting would wait out the connect timeout and say "could not be reached".
    stub, _ = await guarded(egress_connect_timeout_s=30.0)
    session_id, _ = await browser_open(stub, as_person)
    await refused_navigation(stub, as_person, session_id, f"http://{METADATA}/latest/meta-data/")

    assert [r["rule"] for r in refusals(log_tee, session_id)] == ["link_local"]


async def test_an_allowed_test_address_works_by_address_and_name(guarded, as_person, site):
    stub, _ = await guarded()
    session_id, page = await browser_open(stub, as_person, f"{site.url}/")
    assert "The test site" in page.text

    port = site.port
    by_name = await goto(stub, as_person, session_id, f"http://shop.test:{port}/")
    assert "The test site" in by_name.text

    ws_url = f"ws://{SITE_HOST}:{port}/echo"
    await goto(stub, as_person, session_id, f"{site.url}/socket?to={ws_url}")
    assert "echo: hello" in await text_becomes(stub, as_person, session_id, "echo", "failed")


async def test_a_look_alike_name_is_the_other_site_it_is(guarded, vault_stub, as_person, site):
    """A page at "shоp.test" (Cyrillic о) reads as xn--shp-ted.test, and the
    login saved for shop.test is not typed there; saved with the look-alike
    written in Unicode, the binding is the punycode name, as the page's."""
    stub, _ = await guarded()
    shop = f"http://shop.test:{site.port}"
    login = await put_login(vault_stub, as_person, origin=shop)
    session_id, page = await browser_open(
        stub, as_person, f"http://sh\u043ep.test:{site.port}/login"
    )
    assert page.url == f"http://{LOOK_ALIKE}:{site.port}/login"

    error = await refused(
        stub.EnterPrivate(login_request(session_id, page, login.id), metadata=as_person)
    )

    assert error.reason == "PAGE_NOT_BOUND"
    assert error.message.startswith(f"this page belongs to http://{LOOK_ALIKE}:{site.port}, not")
    assert not any(f.filled for f in (await browser_read(stub, as_person, session_id)).fields)
    spelled = await put_login(vault_stub, as_person, origin=f"http://sh\u043ep.test:{site.port}")
    assert spelled.origin == f"http://{LOOK_ALIKE}:{site.port}"


async def test_a_rebinding_name_never_reaches_loopback(guarded, as_person, site, log_tee):
    """rebind.test answers the site's address, then 127.0.0.1: the page
    loads from the site, and its next request (to the same name and port,
    where a listener on 127.0.0.1 waits) is refused, not sent there."""
    port = site.port
    same_port_inside = await Inside().start(port)
    try:
        names = Names()
        stub, _ = await guarded(names=names)
        session_id, _ = await browser_open(
            stub, as_person, f"http://rebind.test:{port}/same-origin-fetch"
        )
        shown = await text_becomes(stub, as_person, session_id, "fetch failed", "data:")

        assert "from the site" not in shown  # the second answer came from the guard
        assert names.rebind_answers == 2  # one answer per request, each judged
        assert same_port_inside.connections == 0
        assert [r["host"] for r in refusals(log_tee, session_id)] == ["rebind.test"]
    finally:
        await same_port_inside.close()


async def test_the_services_own_address_stays_refused_inside_allowed_networks(
    guarded, as_person, claims_server, inside, log_tee
):
    stub, _ = await guarded(allowed_networks="127.0.0.0/8")
    session_id, _ = await browser_open(stub, as_person)
    await refused_navigation(stub, as_person, session_id, f"http://{claims_server}/")
    await refused_navigation(stub, as_person, session_id, f"http://127.0.0.1:{inside.port}/")

    assert [r["rule"] for r in refusals(log_tee, session_id)] == ["own", "own"]
    assert inside.connections == 0


async def test_webrtc_sends_nothing_around_the_guard(guarded, as_person, site, inside, log_tee):
    """A STUN server on an allowed address (UDP, which no HTTP proxy
    carries) hears nothing; a TURN server over TCP on 127.0.0.1 is refused
    by the guard."""
    heard = []

    class Counting(asyncio.DatagramProtocol):
        def datagram_received(self, data, addr):
            heard.append(data)

    transport, _ = await asyncio.get_running_loop().create_datagram_endpoint(
        Counting, local_addr=(SITE_HOST, 0)
    )
    try:
        stun = f"stun:{SITE_HOST}:{transport.get_extra_info('sockname')[1]}"
        turn = f"turn:127.0.0.1:{inside.port}?transport=tcp"
        stub, _ = await guarded()
        session_id, _ = await browser_open(
            stub, as_person, f"{site.url}/webrtc?stun={stun}&turn={turn}"
        )
        # Gathering begins with both servers at once; the TURN server's
        # refusal says it has begun, and a STUN packet goes out at once.
        await poll(lambda: heard or refusals(log_tee, session_id), what="ICE gathering")
        await asyncio.sleep(1.0)
    finally:
        transport.close()

    assert heard == []
    assert inside.connections == 0


async def test_a_refusal_is_counted_in_metrics(guarded, as_person):
    stub, running = await guarded()
    address = f"127.0.0.1:{running.metrics_port}"
    before = (await scrape(address)).value("nod_browser_egress_refused_total", rule="link_local")

    session_id, _ = await browser_open(stub, as_person)
    await refused_navigation(stub, as_person, session_id, f"http://{METADATA}/")

    after = (await scrape(address)).value("nod_browser_egress_refused_total", rule="link_local")
    assert after == before + 1


async def test_health_says_not_serving_once_the_guard_is_gone(
    claims_server, service_token, browser_chromium
):
    settings = browser_settings(claims_server, service_token, health_probe_s=0.2)
    egress = EgressProxy(parse_networks(BROWSER_ALLOWED_NETWORKS))
    await egress.start()
    running = await service.start(
        await build(settings, chromium=browser_chromium, egress=egress),
        settings,
        listen="127.0.0.1:0",
    )
    try:
        async with open_channel(running.address) as channel:
            health = health_pb2_grpc.HealthStub(channel)

            async def status():
                reply = await health.Check(health_pb2.HealthCheckRequest(), timeout=2)
                return reply.status

            assert await status() == health_pb2.HealthCheckResponse.SERVING
            await egress.close()
            await poll(
                lambda: _is(status, health_pb2.HealthCheckResponse.NOT_SERVING),
                what="health to say NOT_SERVING",
            )
    finally:
        await running.stop(0)


async def _is(status, wanted) -> bool:
    return await status() == wanted
