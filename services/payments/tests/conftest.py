"""The payments tests' fixtures: the claims service as its own process
(payments checks card claims there), a migrated schema, one in-process
payments service for the session (started the way `serve` starts it), fresh
servers with other settings, and service processes for the restart tests."""

import uuid

import pytest

from nod.claims.v1 import claims_pb2_grpc
from nod.payments.v1 import payments_pb2_grpc
from nod_payments import MIGRATIONS, SCHEMA
from nod_payments.settings import PaymentsSettings
from nod_payments.wiring import build
from nodkit import service
from nodkit.client import open_channel
from nodkit.db import create_engine
from nodtest.processes import Peer, ServiceProcess, free_port, wait_until_serving

from .support import CardClaims, SavedCards


@pytest.fixture(scope="session")
async def claims_peer(service_env, tmp_path_factory):
    log = tmp_path_factory.mktemp("claims") / "claims.log"
    # Sweeps only at boot: the test runner's holder lease never matters.
    peer = Peer("claims", {**service_env, "NOD_CLAIMS_SWEEP_INTERVAL_S": "3600"}, log)
    await peer.start()
    yield peer
    peer.stop()


@pytest.fixture(scope="session")
async def card_claims(claims_peer):
    """Real card claims through the claims service, as the runner makes them."""
    channel = open_channel(claims_peer.address)
    yield CardClaims(
        claims_pb2_grpc.ClaimsServiceStub(channel), claims_pb2_grpc.VaultServiceStub(channel)
    )
    await channel.close()


@pytest.fixture(autouse=True)
def saved_cards(card_claims):
    """Payments made by support.create_payment name a card the person saved:
    the card entry binds only such a card (G13)."""
    SavedCards.vault = card_claims.vault_stub
    yield
    SavedCards.vault = None


@pytest.fixture(scope="session")
def payments_migrated(database_url) -> str:
    MIGRATIONS.upgrade(database_url)
    return database_url


def payments_settings(database_url, service_token, **overrides) -> PaymentsSettings:
    values = {"instance_id": "payments-test", **overrides}
    return PaymentsSettings(database_url=database_url, service_token=service_token, **values)


async def start_payments_server(database_url, service_token, **overrides):
    """An in-process server on a free port, SERVING."""
    settings = payments_settings(database_url, service_token, **overrides)
    return await service.start(await build(settings), settings, listen="127.0.0.1:0")


@pytest.fixture(scope="session")
async def payments_engine(payments_migrated, service_token):
    """The payments schema, for asserting on rows and history."""
    engine = create_engine(payments_settings(payments_migrated, service_token), SCHEMA)
    yield engine
    await engine.dispose()


@pytest.fixture(scope="session")
async def payments_server(payments_migrated, service_token, claims_peer, log_tee):
    # Sweeps only at boot, so the process tests decide who sweeps what.
    running = await start_payments_server(
        payments_migrated, service_token, sweep_interval_s=3600, claims_addr=claims_peer.address
    )
    yield running.address
    await running.stop()


@pytest.fixture(scope="session")
async def payments_stub(payments_server):
    channel = open_channel(payments_server)
    yield payments_pb2_grpc.PaymentsServiceStub(channel)
    await channel.close()


@pytest.fixture
async def payments_stub_with(payments_migrated, service_token, claims_peer):
    """stub_with(**settings): a stub for a fresh in-process server with those
    settings (an instance id of its own; the session's database unless
    database_url is given), stopped after the test."""
    cleanups = []

    async def start(database_url: str = payments_migrated, **overrides):
        overrides.setdefault("instance_id", f"payments-test-{uuid.uuid4().hex[:8]}")
        overrides.setdefault("claims_addr", claims_peer.address)
        running = await start_payments_server(database_url, service_token, **overrides)
        channel = open_channel(running.address)
        cleanups.extend([channel.close, running.stop])
        return payments_pb2_grpc.PaymentsServiceStub(channel)

    yield start
    for cleanup in cleanups:
        await cleanup()


@pytest.fixture
def payments_processes(payments_migrated, service_env, claims_peer, tmp_path):
    """start(instance_id, **settings) -> (process, address); all killed at the end."""
    started: list[ServiceProcess] = []

    async def start(instance_id: str, address: str | None = None, **settings):
        address = address or f"127.0.0.1:{free_port()}"
        env = {
            **service_env,
            "NOD_INSTANCE_ID": instance_id,
            "NOD_PAYMENTS_LISTEN": address,
            "NOD_CLAIMS_ADDR": claims_peer.address,
            **{f"NOD_PAYMENTS_{k.upper()}": str(v) for k, v in settings.items()},
        }
        process = ServiceProcess("nod_payments", env, tmp_path / f"{instance_id}.log")
        process.start()
        started.append(process)
        await wait_until_serving(address)
        return process, address

    yield start
    for process in started:
        process.stop()
