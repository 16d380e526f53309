"""Builds the payments service from its settings: the engine, this
instance's lease, the claims client, the use cases and their servicer, the
change notices, the boot reconcile and the sweeper. Nothing else constructs them."""

from nod.payments.v1 import payments_pb2, payments_pb2_grpc
from nod_payments import MIGRATIONS, SCHEMA
from nod_payments.adapters.claims_client import ClaimsClient
from nod_payments.api.payments import PaymentsServicer
from nod_payments.app.card_entry import CardEntry
from nod_payments.app.confirmation import Confirmation
from nod_payments.app.creation import Creation
from nod_payments.app.limits import LimitsApp
from nod_payments.app.payments import Payments
from nod_payments.domain.payments import PaymentState
from nod_payments.recovery import release_own_running, sweep_once
from nod_payments.settings import PaymentsSettings
from nod_payments.store.models import INSTANCE_LEASES
from nod_payments.store.models import payments as payments_table
from nodkit.background import every
from nodkit.db import answers, create_engine
from nodkit.leases import OwnLease
from nodkit.metrics_collectors import DatabaseFigures, DatabasePools, StateCount
from nodkit.notices import Notices
from nodkit.service import GrpcService, Service

SERVICES = payments_pb2.DESCRIPTOR.services_by_name
# The channel migration 0004's trigger announces a payment's changes on.
CHANGE_NOTICES = "nod_payment_changes"


async def build(settings: PaymentsSettings) -> Service:
    engine = create_engine(settings, SCHEMA)
    lease = OwnLease(engine, INSTANCE_LEASES, settings.instance_id, settings.lease_ttl_s)
    notices = Notices(settings, CHANGE_NOTICES)
    claims = ClaimsClient(
        settings.claims_addr,
        settings.own_token("payments"),
        settings.claims_timeout_s,
        tls=settings.tls(),
    )
    servicer = PaymentsServicer(
        creation=Creation(engine, confirmation_ttl_s=settings.confirmation_ttl_s),
        confirmation=Confirmation(engine, instance_id=settings.instance_id),
        card_entry=CardEntry(engine, lease, claims),
        payments=Payments(engine, notices, watch_poll_s=settings.watch_poll_s),
        limits=LimitsApp(engine),
    )

    async def boot() -> None:
        """Before SERVING: this instance's cut-off card entries end UNCERTAIN."""
        await MIGRATIONS.wait_until_at_head(engine, settings.migration_poll_s)
        await lease.renew()
        await release_own_running(engine, settings.instance_id)
        await sweep_once(engine, settings.instance_id, settings.max_running_s)

    async def sweep() -> None:
        await every(
            settings.sweep_interval_s,
            lambda: sweep_once(engine, settings.instance_id, settings.max_running_s),
            event="sweep",
        )

    async def close() -> None:
        await claims.close()
        await engine.dispose()

    return Service(
        name="payments",
        grpc_services=[
            GrpcService(
                SERVICES["PaymentsService"],
                payments_pb2_grpc.add_PaymentsServiceServicer_to_server,
                servicer,
            )
        ],
        boot=boot,
        background=[lease.keep_alive(), notices.run, sweep],
        probe=lambda: answers(engine),
        close=close,
        collectors=[
            DatabaseFigures(
                "payments",
                engine,
                states=[StateCount("payment", payments_table, tuple(PaymentState))],
            ),
            DatabasePools("payments", engine),
        ],
    )
