"""The browser tests' peers: the claims service as its own process (the
runner's one dependency), shared by the session."""

import pytest

from nod.claims.v1 import claims_pb2_grpc
from nodkit.client import open_channel
from nodtest.processes import Peer


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
