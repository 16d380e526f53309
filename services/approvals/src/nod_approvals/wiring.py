"""Builds the approvals service from its settings: the engine, the
connectors, the use cases and their servicer, this instance's lease, the
change notices, the boot reconcile and the sweeper. Nothing else constructs them."""

from nod.approvals.v1 import approvals_pb2, approvals_pb2_grpc
from nod_approvals import MIGRATIONS, SCHEMA
from nod_approvals.adapters.connectors import Connectors
from nod_approvals.adapters.connectors.addresses import AddressGuard
from nod_approvals.adapters.connectors.smtp import SmtpConnector
from nod_approvals.adapters.connectors.webhook import WebhookConnector
from nod_approvals.api.admin import ApprovalsAdminServicer
from nod_approvals.api.approvals import ApprovalsServicer
from nod_approvals.app.accounts import Accounts
from nod_approvals.app.approvals import Approvals
from nod_approvals.app.decisions import Decisions
from nod_approvals.app.executor import BeforeSend, Executor
from nod_approvals.app.proposals import Proposals
from nod_approvals.domain.approvals import ExecutionState
from nod_approvals.recovery import reconcile_own, sweep_once
from nod_approvals.settings import ApprovalsSettings
from nod_approvals.store.models import INSTANCE_LEASES
from nod_approvals.store.models import executions as executions_table
from nod_approvals.store.reseal import SEALED_TABLES
from nodkit.background import every
from nodkit.crypto import Sealer
from nodkit.db import answers, create_engine
from nodkit.leases import OwnLease
from nodkit.metrics_collectors import DatabaseFigures, DatabasePools, StateCount
from nodkit.notices import Notices
from nodkit.resealing import Resealer
from nodkit.service import GrpcService, Service
from nodkit.startup import check_vault_keys

SERVICES = approvals_pb2.DESCRIPTOR.services_by_name
# The channel migration 0004's trigger announces an approval's changes on.
CHANGE_NOTICES = "nod_approval_changes"


async def build(settings: ApprovalsSettings, *, before_send: BeforeSend | None = None) -> Service:
    """`before_send` lets a test act between "yes" and "send"; production passes None."""
    engine = create_engine(settings, SCHEMA)
    guard = AddressGuard(settings.allowed_networks)
    connectors = Connectors(
        [
            WebhookConnector(timeout_s=settings.webhook_timeout_s, guard=guard),
            SmtpConnector(
                timeout_s=settings.smtp_timeout_s, guard=guard, ca_file=settings.smtp_ca_file
            ),
        ]
    )
    notices = Notices(settings, CHANGE_NOTICES)
    sealer = Sealer(settings.vault_key.get_secret_value())
    accounts = Accounts(engine, sealer, connectors)
    executor = Executor(
        engine,
        accounts,
        connectors,
        instance_id=settings.instance_id,
        deadline_s=settings.execution_deadline_s,
        before_send=before_send,
    )
    servicer = ApprovalsServicer(
        accounts,
        Proposals(engine, connectors, ttl_s=settings.approval_ttl_s),
        Decisions(engine, executor),
        Approvals(engine, notices, watch_poll_s=settings.watch_poll_s),
    )
    lease = OwnLease(engine, INSTANCE_LEASES, settings.instance_id, settings.lease_ttl_s)

    async def boot() -> None:
        await MIGRATIONS.wait_until_at_head(engine, settings.migration_poll_s)
        # Values sealed under a key the ring lacks would show as saved and
        # fail only when used: the process ends here instead, saying so.
        await check_vault_keys(engine, sealer, SEALED_TABLES)
        await lease.renew()
        await reconcile_own(engine, settings.instance_id)
        await sweep_once(engine, executor)

    async def sweep() -> None:
        await every(settings.sweep_interval_s, lambda: sweep_once(engine, executor), event="sweep")

    async def close() -> None:
        # Whatever is still sending after the grace period ends UNCERTAIN.
        await executor.shutdown()
        await engine.dispose()

    return Service(
        name="approvals",
        grpc_services=[
            GrpcService(
                SERVICES["ApprovalsService"],
                approvals_pb2_grpc.add_ApprovalsServiceServicer_to_server,
                servicer,
            ),
            GrpcService(
                SERVICES["ApprovalsAdminService"],
                approvals_pb2_grpc.add_ApprovalsAdminServiceServicer_to_server,
                ApprovalsAdminServicer(Resealer(engine, sealer, SEALED_TABLES)),
            ),
        ],
        boot=boot,
        background=[lease.keep_alive(), notices.run, sweep],
        probe=lambda: answers(engine),
        close=close,
        collectors=[
            DatabaseFigures(
                "approvals",
                engine,
                states=[StateCount("execution", executions_table, tuple(ExecutionState))],
            ),
            DatabasePools("approvals", engine),
        ],
    )
