"""Wiring: the claims service's servicers, boot reconcile and sweeper."""

from functools import partial

from psycopg_pool import AsyncConnectionPool
from sqlalchemy.ext.asyncio import AsyncEngine

from nod.claims.v1 import claims_pb2, claims_pb2_grpc
from nod_claims import MIGRATIONS_DIR, SCHEMA
from nod_claims.claims_app import Claims
from nod_claims.recovery import sweep_once
from nod_claims.servicer import ClaimsServicer, VaultServicer
from nod_claims.settings import ClaimsSettings
from nod_claims.vault_app import Vault
from nodkit.background import every
from nodkit.crypto import Sealer
from nodkit.db import open_hot_path_pool
from nodkit.migrations import wait_until_at_head
from nodkit.server import RunningServer, ServiceDefinition, create_server, serve_until_signalled

GRPC_SERVICES = [
    claims_pb2.DESCRIPTOR.services_by_name["ClaimsService"].full_name,
    claims_pb2.DESCRIPTOR.services_by_name["VaultService"].full_name,
]


def definition(
    settings: ClaimsSettings, engine: AsyncEngine, hot_pool: AsyncConnectionPool
) -> ServiceDefinition:
    sealer = Sealer(settings.vault_key.get_secret_value())
    claims = Claims(
        engine,
        hot_pool,
        sealer,
        lease_ttl_s=settings.lease_ttl_s,
        concurrent_claim_batches=settings.claim_batches,
    )
    vault = Vault(engine, sealer, private_entry_ttl_s=settings.private_entry_ttl_s)

    def register(server) -> None:
        claims_pb2_grpc.add_ClaimsServiceServicer_to_server(ClaimsServicer(claims), server)
        claims_pb2_grpc.add_VaultServiceServicer_to_server(VaultServicer(vault), server)

    return ServiceDefinition("claims", GRPC_SERVICES, register)


async def boot(settings: ClaimsSettings, engine: AsyncEngine) -> None:
    await wait_until_at_head(engine, MIGRATIONS_DIR, SCHEMA, settings.migration_poll_s)
    await sweep_once(engine, settings.instance_id)


async def start(
    settings: ClaimsSettings, engine: AsyncEngine, hot_pool: AsyncConnectionPool, listen: str
) -> RunningServer:
    """Listening and ready, for tests."""
    running = await create_server(
        definition(settings, engine, hot_pool), token=settings.service_token, listen=listen
    )
    await boot(settings, engine)
    await running.mark_serving()
    return running


async def serve(settings: ClaimsSettings, engine: AsyncEngine) -> None:
    hot_pool = await open_hot_path_pool(settings, SCHEMA, settings.db_pool_size)
    try:
        running = await create_server(
            definition(settings, engine, hot_pool),
            token=settings.service_token,
            listen=settings.listen,
        )
        await serve_until_signalled(
            running,
            prepare=partial(boot, settings, engine),
            background=[
                partial(
                    every,
                    settings.sweep_interval_s,
                    partial(sweep_once, engine, settings.instance_id),
                    event="sweep",
                )
            ],
            grace=settings.shutdown_grace_s,
        )
    finally:
        await hot_pool.close()
