"""`GET /metrics` on a port of the service's own (NOD_<SERVICE>_METRICS_LISTEN),
served by aiohttp on the service's own event loop.

Not prometheus_client's start_http_server: that runs in a thread of its
own, where the scrape-time database reads (nodkit.metrics_collectors) could
not use the service's async engine, and a thread outlives SIGTERM unless
someone stops it. This one closes with the service.

What it serves: this process's registry (RPC calls, UNCERTAIN, sweeps, model
requests, process figures) and the service's own collectors.

aiohttp is imported when the server starts: it is a fifth of a service's
import time, and a service without /metrics (metrics_listen unset) never
needs it."""

import asyncio
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import Metric

from nodkit.logging import get_logger
from nodkit.metrics_collectors import Collector

if TYPE_CHECKING:
    from aiohttp import web

log = get_logger("nodkit.metrics")

PATH = "/metrics"
# A scrape still being answered at stop is given this long.
SHUTDOWN_S = 1.0


class _ProcessWide:
    """The process's default registry, inside this server's registry."""

    def collect(self) -> Iterable[Metric]:
        return REGISTRY.collect()


class MetricsServer:
    def __init__(self, service: str, collectors: Sequence[Collector] = ()) -> None:
        self.service = service
        self._collectors = collectors
        # No describe(): families are checked for clashes by their names in
        # the documentation, not at registration.
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(_ProcessWide())
        for collector in collectors:
            self.registry.register(collector)
        self._runner: web.AppRunner | None = None
        self.port: int | None = None

    async def start(self, listen: str) -> int:
        from aiohttp import web

        host, _, port = listen.rpartition(":")
        app = web.Application()
        app.router.add_get(PATH, self._scrape)  # and HEAD; any other method is 405
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=SHUTDOWN_S)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host or "0.0.0.0", int(port), reuse_address=True)
        await site.start()
        self.port = self._runner.addresses[0][1]
        log.info("metrics.listening", service=self.service, address=listen, port=self.port)
        return self.port

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def render(self) -> bytes:
        """The exposition text, its database figures read (or cached) first."""
        refreshing = [
            refresh() for c in self._collectors if (refresh := getattr(c, "refresh", None))
        ]
        await asyncio.gather(*refreshing)
        return generate_latest(self.registry)

    async def _scrape(self, request: "web.Request") -> "web.Response":
        from aiohttp import web

        try:
            body = await self.render()
        except Exception as error:  # noqa: BLE001 - a scrape must never take the service down
            log.error("metrics.render_failed", service=self.service, error=type(error).__name__)
            return web.Response(status=500, text="the figures could not be read\n")
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})
