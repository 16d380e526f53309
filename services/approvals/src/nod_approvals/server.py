"""The life of the service: listen, boot reconcile, SERVING, lease renewal and
sweeper, and on the way out, whatever is still sending ends UNCERTAIN."""

import asyncio
from dataclasses import dataclass, field
from functools import partial

from sqlalchemy.ext.asyncio import AsyncEngine

from nod_approvals import MIGRATIONS_DIR, SCHEMA
from nod_approvals.execution import BeforeSend
from nod_approvals.recovery import reconcile_own, sweep_once
from nod_approvals.settings import ApprovalsSettings
from nod_approvals.wiring import Parts, build, definition
from nodkit.background import every
from nodkit.migrations import wait_until_at_head
from nodkit.server import RunningServer, create_server, serve_until_signalled


async def boot(settings: ApprovalsSettings, engine: AsyncEngine, parts: Parts) -> None:
    await wait_until_at_head(engine, MIGRATIONS_DIR, SCHEMA, settings.migration_poll_s)
    await parts.lease.renew()
    await reconcile_own(engine, settings.instance_id)
    await sweep_once(engine, parts.executor, parts.feed)


def background(settings: ApprovalsSettings, engine: AsyncEngine, parts: Parts):
    return [
        partial(parts.lease.renew_forever, settings.lease_ttl_s / 3),
        partial(
            every,
            settings.sweep_interval_s,
            partial(sweep_once, engine, parts.executor, parts.feed),
            event="sweep",
        ),
    ]


@dataclass
class StartedService:
    """An in-process service (tests): listening, reconciled and SERVING."""

    running: RunningServer
    parts: Parts
    loops: list[asyncio.Task] = field(default_factory=list)

    @property
    def port(self) -> int:
        return self.running.port

    async def stop(self, grace: float = 0) -> None:
        await self.running.stop(grace)
        for loop in self.loops:
            loop.cancel()
        await asyncio.gather(*self.loops, return_exceptions=True)
        await self.parts.executor.shutdown()


async def start(
    settings: ApprovalsSettings,
    engine: AsyncEngine,
    listen: str,
    *,
    before_send: BeforeSend | None = None,
) -> StartedService:
    parts = build(settings, engine, before_send=before_send)
    running = await create_server(definition(parts), token=settings.service_token, listen=listen)
    await boot(settings, engine, parts)
    await running.mark_serving()
    loops = [asyncio.ensure_future(loop()) for loop in background(settings, engine, parts)]
    return StartedService(running, parts, loops)


async def serve(settings: ApprovalsSettings, engine: AsyncEngine) -> None:
    parts = build(settings, engine)
    running = await create_server(
        definition(parts), token=settings.service_token, listen=settings.listen
    )
    try:
        await serve_until_signalled(
            running,
            prepare=partial(boot, settings, engine, parts),
            background=background(settings, engine, parts),
            grace=settings.shutdown_grace_s,
        )
    finally:
        # Whatever is still sending after the grace period ends UNCERTAIN.
        await parts.executor.shutdown()
