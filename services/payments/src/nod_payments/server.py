"""Wiring: the payments servicer, the instance lease, boot reconcile and sweeper."""

import asyncio
from dataclasses import dataclass
from functools import partial

from sqlalchemy.ext.asyncio import AsyncEngine

from nod.payments.v1 import payments_pb2, payments_pb2_grpc
from nod_payments import MIGRATIONS_DIR, SCHEMA
from nod_payments.apps import build_apps
from nod_payments.models import instance_leases
from nod_payments.recovery import release_own_running, sweep_once
from nod_payments.servicer import PaymentsServicer
from nod_payments.settings import PaymentsSettings
from nodkit.background import every
from nodkit.instances import InstanceLease
from nodkit.migrations import wait_until_at_head
from nodkit.server import RunningServer, ServiceDefinition, create_server, serve_until_signalled

GRPC_SERVICES = [payments_pb2.DESCRIPTOR.services_by_name["PaymentsService"].full_name]


class Wiring:
    def __init__(self, settings: PaymentsSettings, engine: AsyncEngine) -> None:
        self.settings = settings
        self.engine = engine
        self.lease = InstanceLease(
            engine, instance_leases, settings.instance_id, settings.lease_ttl_s
        )

    def definition(self) -> ServiceDefinition:
        servicer = PaymentsServicer(build_apps(self.settings, self.engine, self.lease))

        def register(server) -> None:
            payments_pb2_grpc.add_PaymentsServiceServicer_to_server(servicer, server)

        return ServiceDefinition("payments", GRPC_SERVICES, register)

    async def boot(self) -> None:
        """Before SERVING: this instance's cut-off card entries end UNCERTAIN."""
        settings = self.settings
        await wait_until_at_head(self.engine, MIGRATIONS_DIR, SCHEMA, settings.migration_poll_s)
        await self.lease.renew()
        await release_own_running(self.engine, settings.instance_id)
        await sweep_once(self.engine, settings.instance_id)

    def background(self) -> list:
        settings = self.settings
        return [
            partial(self.lease.renew_forever, settings.lease_ttl_s / 3),
            partial(
                every,
                settings.sweep_interval_s,
                partial(sweep_once, self.engine, settings.instance_id),
                event="sweep",
            ),
        ]


@dataclass
class StartedService:
    running: RunningServer
    loops: list[asyncio.Task]

    async def stop(self, grace: float) -> None:
        for loop in self.loops:
            loop.cancel()
        await asyncio.gather(*self.loops, return_exceptions=True)
        await self.running.stop(grace)


async def start(settings: PaymentsSettings, engine: AsyncEngine, listen: str) -> StartedService:
    """Listening, reconciled, SERVING, its lease and sweeper running (tests)."""
    wiring = Wiring(settings, engine)
    running = await create_server(wiring.definition(), token=settings.service_token, listen=listen)
    await wiring.boot()
    await running.mark_serving()
    return StartedService(running, [asyncio.ensure_future(loop()) for loop in wiring.background()])


async def serve(settings: PaymentsSettings, engine: AsyncEngine) -> None:
    wiring = Wiring(settings, engine)
    running = await create_server(
        wiring.definition(), token=settings.service_token, listen=settings.listen
    )
    await serve_until_signalled(
        running,
        prepare=wiring.boot,
        background=wiring.background(),
        grace=settings.shutdown_grace_s,
    )
