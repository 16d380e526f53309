"""Builds the claims service from its settings: the database engine and the
hot-path pool, the vault and the claims, their servicers, the boot sweep
and the sweeper and the pruner. Nothing else constructs them."""

from nod.claims.v1 import claims_pb2, claims_pb2_grpc
from nod_claims import MIGRATIONS, SCHEMA, pruning
from nod_claims.api.claims import ClaimsServicer
from nod_claims.api.vault import VaultServicer
from nod_claims.api.vault_admin import VaultAdminServicer
from nod_claims.app.claims import Claims
from nod_claims.app.vault import Vault
from nod_claims.domain.claims import ClaimState
from nod_claims.recovery import sweep_once
from nod_claims.settings import ClaimsSettings
from nod_claims.store.models import claims as claims_table
from nod_claims.store.reseal import SEALED_TABLES
from nodkit.background import every
from nodkit.crypto import Sealer
from nodkit.db import answers, create_engine, open_hot_path_pool
from nodkit.metrics_collectors import DatabaseFigures, DatabasePools, StateCount
from nodkit.resealing import Resealer
from nodkit.service import GrpcService, Service
from nodkit.startup import check_vault_keys

SERVICES = claims_pb2.DESCRIPTOR.services_by_name


async def build(settings: ClaimsSettings) -> Service:
    engine = create_engine(settings, SCHEMA)
    hot_pool = await open_hot_path_pool(settings, SCHEMA, settings.db_pool_size)
    sealer = Sealer(settings.vault_key.get_secret_value())
    claims = Claims(
        engine,
        hot_pool,
        sealer,
        lease_ttl_s=settings.lease_ttl_s,
        db_call_timeout_s=settings.db_call_timeout_s,
        concurrent_claim_batches=settings.claim_batches,
    )
    vault = Vault(engine, sealer, private_entry_ttl_s=settings.private_entry_ttl_s)

    async def boot() -> None:
        await MIGRATIONS.wait_until_at_head(engine, settings.migration_poll_s)
        # Values sealed under a key the ring lacks would show as saved and
        # fail only when used: the process ends here instead, saying so.
        await check_vault_keys(engine, sealer, SEALED_TABLES)
        await sweep_once(engine, settings.instance_id, settings.max_running_s, kind="boot")

    async def sweep() -> None:
        await every(
            settings.sweep_interval_s,
            lambda: sweep_once(engine, settings.instance_id, settings.max_running_s),
            event="sweep",
        )

    async def prune() -> None:
        await pruning.prune_on_schedule(engine, settings)

    async def close() -> None:
        await hot_pool.close()
        await engine.dispose()

    return Service(
        name="claims",
        grpc_services=[
            GrpcService(
                SERVICES["ClaimsService"],
                claims_pb2_grpc.add_ClaimsServiceServicer_to_server,
                ClaimsServicer(claims),
            ),
            GrpcService(
                SERVICES["VaultService"],
                claims_pb2_grpc.add_VaultServiceServicer_to_server,
                VaultServicer(vault),
            ),
            GrpcService(
                SERVICES["VaultAdminService"],
                claims_pb2_grpc.add_VaultAdminServiceServicer_to_server,
                VaultAdminServicer(Resealer(engine, sealer, SEALED_TABLES)),
            ),
        ],
        boot=boot,
        background=[sweep, prune],
        probe=lambda: answers(engine),
        close=close,
        collectors=[
            DatabaseFigures(
                "claims",
                engine,
                states=[StateCount("claim", claims_table, tuple(ClaimState))],
            ),
            DatabasePools("claims", engine, hot_pool),
        ],
    )
