"""The claims tests' fixtures: a migrated schema and one in-process claims
service for the session, started the way `serve` starts it."""

import pytest

from nod.claims.v1 import claims_pb2_grpc
from nod_claims import MIGRATIONS
from nod_claims.settings import ClaimsSettings
from nod_claims.wiring import build
from nodkit import service
from nodkit.client import open_channel


@pytest.fixture(scope="session")
def claims_migrated(database_url) -> str:
    MIGRATIONS.upgrade(database_url)
    return database_url


def claims_settings(database_url, service_token, vault_key, **overrides) -> ClaimsSettings:
    values = {"instance_id": "claims-test", **overrides}
    return ClaimsSettings(
        database_url=database_url, service_token=service_token, vault_key=vault_key, **values
    )


@pytest.fixture(scope="session")
async def claims_server(claims_migrated, service_token, vault_key, log_tee):
    """A claims server on a free port, SERVING, for the whole session. It
    sweeps only at boot, so the restart tests decide who sweeps what."""
    settings = claims_settings(claims_migrated, service_token, vault_key, sweep_interval_s=3600)
    running = await service.start(await build(settings), settings, listen="127.0.0.1:0")
    yield running.address
    await running.stop()


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
async def claims_with(claims_migrated, service_token, vault_key, log_tee):
    """start(**settings) -> (address, stub, vault stub) of an extra claims
    server with those settings; stopped after the test."""
    started = []

    async def start(**overrides):
        overrides.setdefault("instance_id", "claims-extra")
        overrides.setdefault("service_token", service_token)
        values = {"database_url": claims_migrated, "vault_key": vault_key, **overrides}
        settings = ClaimsSettings(**values)
        running = await service.start(await build(settings), settings, listen="127.0.0.1:0")
        channel = open_channel(running.address)
        started.append((running, channel))
        return (
            running.address,
            claims_pb2_grpc.ClaimsServiceStub(channel),
            claims_pb2_grpc.VaultServiceStub(channel),
        )

    yield start
    for running, channel in started:
        await channel.close()
        await running.stop()
