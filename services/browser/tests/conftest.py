"""The browser tests' fixtures: the claims service as its own process (the
runner's one dependency), one Chromium for the session, and browser runners
built by wiring.build and started the way `serve` starts them."""

import uuid

import pytest

from nod.browser.v1 import browser_pb2 as pb
from nod.browser.v1 import browser_pb2_grpc
from nod.claims.v1 import claims_pb2_grpc
from nod_browser.adapters.chromium import Chromium
from nod_browser.settings import BrowserSettings
from nod_browser.wiring import build
from nodkit import service
from nodkit.client import open_channel
from nodtest.addresses import BROWSER_ALLOWED_NETWORKS
from nodtest.processes import Peer, ServiceProcess, free_port, wait_until_serving


@pytest.fixture(scope="session")
async def claims_peer(service_env, tmp_path_factory):
    log = tmp_path_factory.mktemp("claims") / "claims.log"
    # Sweeps only at boot: the tests decide when a holder's lease lapses.
    peer = Peer("claims", {**service_env, "NOD_CLAIMS_SWEEP_INTERVAL_S": "3600"}, log)
    await peer.start()
    yield peer
    peer.stop()


@pytest.fixture(scope="session")
def claims_migrated(claims_peer, database_url) -> str:
    return database_url


@pytest.fixture(scope="session")
def claims_server(claims_peer) -> str:
    return claims_peer.address


@pytest.fixture(scope="session")
async def claims_channel(claims_server):
    channel = open_channel(claims_server)
    yield channel
    await channel.close()


@pytest.fixture(scope="session")
def claims_stub(claims_channel) -> claims_pb2_grpc.ClaimsServiceStub:
    return claims_pb2_grpc.ClaimsServiceStub(claims_channel)


@pytest.fixture(scope="session")
def vault_stub(claims_channel) -> claims_pb2_grpc.VaultServiceStub:
    return claims_pb2_grpc.VaultServiceStub(claims_channel)


@pytest.fixture
async def doomed_claims(claims_migrated, service_env, tmp_path):
    """A claims service process of its own, for a test to stop (and start again)."""
    address = f"127.0.0.1:{free_port()}"
    env = service_env | {"NOD_CLAIMS_LISTEN": address, "NOD_INSTANCE_ID": "claims-doomed"}
    process = ServiceProcess("nod_claims", env, tmp_path / "claims.log")
    process.start()
    process.address = address
    await wait_until_serving(address)
    yield process
    process.stop()


def browser_settings(claims_addr: str, service_token, **overrides) -> BrowserSettings:
    values = {
        "claims_addr": claims_addr,
        "service_token": service_token,
        "instance_id": f"browser-test-{uuid.uuid4().hex[:8]}",
        "action_timeout_s": 5.0,
        "entry_timeout_s": 10.0,
        "request_timeout_s": 30.0,
        "migration_poll_s": 0.2,
        # The test sites' addresses (127.0.0.2 and up), never the services' 127.0.0.1.
        "allowed_networks": BROWSER_ALLOWED_NETWORKS,
    }
    return BrowserSettings(**(values | overrides))


async def start_browser(settings: BrowserSettings, chromium: Chromium):
    return await service.start(
        await build(settings, chromium=chromium), settings, listen="127.0.0.1:0"
    )


@pytest.fixture(scope="session")
async def browser_chromium():
    """One Chromium process shared by every in-process browser runner."""
    chromium = await Chromium.launch()
    yield chromium
    await chromium.close()


@pytest.fixture(scope="session")
async def browser_server(claims_server, service_token, browser_chromium, log_tee):
    running = await start_browser(browser_settings(claims_server, service_token), browser_chromium)
    yield running
    await running.stop(0)


@pytest.fixture(scope="session")
async def browser_stub(browser_server):
    channel = open_channel(browser_server.address)
    yield browser_pb2_grpc.BrowserServiceStub(channel)
    await channel.close()


@pytest.fixture(autouse=True)
async def _close_sessions_after(request):
    """The shared runner allows only so many open sessions: each test's are
    closed after it, as a task's are when it ends."""
    if "browser_stub" not in request.fixturenames:
        yield
        return
    # Asked for before the test, so they are torn down after this fixture.
    stub = request.getfixturevalue("browser_stub")
    meta = request.getfixturevalue("as_person")
    yield
    listed = await stub.ListSessions(pb.ListSessionsRequest(), metadata=meta)
    for session in listed.sessions:
        close = pb.CloseSessionRequest(session_id=session.session_id)
        await stub.CloseSession(close, metadata=meta)


@pytest.fixture
async def browser_with(browser_chromium, service_token):
    """Starts browser runners of the test's own (own settings, e.g. bound to
    doomed_claims) and stops them after the test."""
    started = []

    async def start(claims_addr: str, **overrides) -> browser_pb2_grpc.BrowserServiceStub:
        running = await start_browser(
            browser_settings(claims_addr, service_token, **overrides), browser_chromium
        )
        channel = open_channel(running.address)
        started.append((running, channel))
        return browser_pb2_grpc.BrowserServiceStub(channel)

    yield start
    for running, channel in reversed(started):
        await channel.close()
        await running.stop(0)
