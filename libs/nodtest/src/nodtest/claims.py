"""Fixtures and builders for the claims service: migrated schema, an
in-process server, saved items and live holders."""

import uuid

import pytest

from nod.claims.v1 import claims_pb2 as pb
from nod.claims.v1 import claims_pb2_grpc
from nodkit import service
from nodkit.client import open_channel


@pytest.fixture(scope="session")
def claims_migrated(database_url) -> str:
    from nod_claims import MIGRATIONS

    MIGRATIONS.upgrade(database_url)
    return database_url


def claims_settings(database_url, service_token, vault_key, **overrides):
    from nod_claims.settings import ClaimsSettings

    return ClaimsSettings(
        database_url=database_url,
        service_token=service_token,
        vault_key=vault_key,
        instance_id="claims-test",
        **overrides,
    )


@pytest.fixture(scope="session")
async def claims_server(claims_migrated, service_token, vault_key, log_tee):
    """A claims server on a free port, SERVING, for the whole session."""
    from nod_claims.wiring import build

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


# Builders


ORIGIN = "https://shop.example"
CANARY_PASSWORD = "canary-pw-7Q4zX9!"
CANARY_CARD = "4111111111111111"


def op_id() -> str:
    return f"op-{uuid.uuid4().hex}"


async def put_login(vault_stub, meta, *, origin=ORIGIN, password=CANARY_PASSWORD) -> pb.VaultItem:
    reply = await vault_stub.PutItem(
        pb.PutItemRequest(
            item=pb.VaultItem(
                kind=pb.ENTRY_KIND_SAVED_LOGIN,
                label="shop",
                origin=origin,
                fields={"username": "ada@example.com", "password": password},
            )
        ),
        metadata=meta,
    )
    return reply.item


async def put_card(vault_stub, meta, *, number=CANARY_CARD) -> pb.VaultItem:
    reply = await vault_stub.PutItem(
        pb.PutItemRequest(
            item=pb.VaultItem(
                kind=pb.ENTRY_KIND_CARD,
                label="visa",
                fields={"number": number, "expiry": "12/29", "holder_name": "Ada Lovelace"},
            )
        ),
        metadata=meta,
    )
    return reply.item


async def live_holder(claims_stub, meta) -> str:
    holder = f"runner-{uuid.uuid4().hex[:8]}"
    await claims_stub.RenewHolder(pb.RenewHolderRequest(holder=holder), metadata=meta)
    return holder


def claim_request(item, holder, *, operation_id=None, task_id="task-1", origin=ORIGIN, kind=None):
    return pb.ClaimRequest(
        operation_id=operation_id or op_id(),
        kind=kind or item.kind,
        item_id=item.id,
        origin=origin,
        task_id=task_id,
        holder=holder,
    )
