"""Wiring: one Chromium per process, the live sessions, the claims client;
the boot release (before SERVING) and the lease renewal loop (G12)."""

import asyncio
from dataclasses import dataclass
from functools import partial

from nod.browser.v1 import browser_pb2, browser_pb2_grpc
from nod_browser.chromium import Chromium
from nod_browser.claims_client import ClaimsClient
from nod_browser.lease import release_previous_life, renew_forever
from nod_browser.private_entry import PrivateEntries
from nod_browser.servicer import BrowserServicer
from nod_browser.sessions import Sessions
from nod_browser.settings import BrowserSettings
from nodkit.server import RunningServer, ServiceDefinition, create_server, serve_until_signalled

GRPC_SERVICES = [browser_pb2.DESCRIPTOR.services_by_name["BrowserService"].full_name]


@dataclass
class Runner:
    settings: BrowserSettings
    chromium: Chromium
    sessions: Sessions
    claims: ClaimsClient

    @classmethod
    def build(cls, settings: BrowserSettings, chromium: Chromium) -> "Runner":
        claims = ClaimsClient(
            settings.claims_addr,
            settings.service_token,
            settings.instance_id,
            settings.claims_timeout_s,
        )
        return cls(settings, chromium, Sessions(settings.max_sessions), claims)

    def definition(self) -> ServiceDefinition:
        entries = PrivateEntries(self.claims, self.settings)
        servicer = BrowserServicer(self.chromium, self.sessions, entries, self.settings)
        return ServiceDefinition(
            "browser",
            GRPC_SERVICES,
            partial(browser_pb2_grpc.add_BrowserServiceServicer_to_server, servicer),
        )

    async def boot(self) -> None:
        await release_previous_life(self.claims, self.settings.migration_poll_s)

    async def renew(self) -> None:
        await renew_forever(self.claims, self.settings.lease_renew_s)

    async def close(self) -> None:
        await self.sessions.close_all()  # in-flight entries end UNCERTAIN first
        await self.claims.close()


@dataclass
class RunningBrowser:
    server: RunningServer
    runner: Runner
    renewing: asyncio.Task

    @property
    def port(self) -> int:
        return self.server.port

    async def stop(self, grace: float = 0) -> None:
        await self.server.stop(grace)
        self.renewing.cancel()
        await self.runner.close()


async def start(settings: BrowserSettings, chromium: Chromium, listen: str) -> RunningBrowser:
    """Listening and ready, sharing a Chromium the caller owns (tests)."""
    runner = Runner.build(settings, chromium)
    running = await create_server(runner.definition(), token=settings.service_token, listen=listen)
    await runner.boot()
    await running.mark_serving()
    return RunningBrowser(running, runner, asyncio.ensure_future(runner.renew()))


async def serve(settings: BrowserSettings, engine: None = None) -> None:
    chromium = await Chromium.launch(settings.chromium)
    runner = Runner.build(settings, chromium)
    try:
        running = await create_server(
            runner.definition(), token=settings.service_token, listen=settings.listen
        )
        await serve_until_signalled(
            running, prepare=runner.boot, background=[runner.renew], grace=settings.shutdown_grace_s
        )
    finally:
        await runner.close()
        await chromium.close()
