"""A nod service as nodkit runs it, and the one way to run it.

Every service's `wiring.build(settings)` returns a Service. The process
(`python -m nod_<service> serve`, which `make run` starts) and the tests run
it through the same start(), in the same order (docs/DESIGN.md, guarantee 12):

  listen with health NOT_SERVING and business calls refused
  -> boot: migrations at head, then the boot reconcile (its own running
     records end UNCERTAIN)
  -> SERVING; the background loops and the health probe start
  -> stop: NOT_SERVING, in-flight calls get a grace period, the loops end,
     then the service closes what it opened (pools, browsers).
"""

import asyncio
import contextlib
import signal
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf.descriptor import ServiceDescriptor

from nodkit.logging import get_logger
from nodkit.metrics_collectors import Collector
from nodkit.metrics_server import MetricsServer
from nodkit.server import Listening, create_server
from nodkit.settings import ServiceSettings
from nodkit.version import release

log = get_logger("nodkit.service")

Loop = Callable[[], Awaitable[None]]


async def _nothing() -> None:
    return None


@dataclass(frozen=True)
class GrpcService:
    """One gRPC service of a nod service: its descriptor (for health and
    reflection), the generated add_*_to_server function and its servicer."""

    descriptor: ServiceDescriptor
    add_to_server: Callable[[Any, grpc.aio.Server], None]
    servicer: object

    @property
    def full_name(self) -> str:
        return self.descriptor.full_name


@dataclass
class Service:
    name: str
    grpc_services: Sequence[GrpcService]
    # Before SERVING: wait for migrations, then end this instance's cut-off work.
    boot: Loop = _nothing
    # Run while SERVING (sweepers, lease renewals); cancelled on stop.
    background: Sequence[Loop] = ()
    # Raises while a dependency (the database) does not answer: health then
    # says NOT_SERVING until it answers again.
    probe: Loop | None = None
    # After the server stopped.
    close: Loop = _nothing
    # Its own figures on /metrics, beside every process's (nodkit.metrics):
    # records by state, pools, sessions (nodkit.metrics_collectors).
    collectors: Sequence[Collector] = ()


# How long the background loops get to end once cancelled.
LOOPS_STOP_S = 5.0


@dataclass
class RunningService:
    service: Service
    listening: Listening
    tasks: list[asyncio.Task] = field(default_factory=list)
    # Serving /metrics when the settings name a metrics_listen address.
    metrics: MetricsServer | None = None

    @property
    def port(self) -> int:
        return self.listening.port

    @property
    def metrics_port(self) -> int | None:
        return self.metrics.port if self.metrics else None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    async def become_ready(self, probe_interval_s: float) -> None:
        await self.service.boot()
        await self.listening.set_serving(True)
        # The one line a start prints (`make run` shows one per service).
        log.info(
            "server.serving",
            service=self.service.name,
            address=self.listening.address,
            version=release(self.service.name),
            tls=self.listening.tls,
        )
        self.tasks = [asyncio.ensure_future(loop()) for loop in self.service.background]
        if self.service.probe is not None:
            self.tasks.append(
                asyncio.ensure_future(self._watch_health(self.service.probe, probe_interval_s))
            )

    async def _watch_health(self, probe: Loop, interval_s: float) -> None:
        """A probe that hasn't answered within the interval counts as down at
        once; it is cancelled, and its clean-up (a frozen database makes that
        slow) runs on while health already says NOT_SERVING."""
        healthy = True
        probing: asyncio.Task | None = None
        while True:
            await asyncio.sleep(interval_s)
            if probing is None or probing.done():
                probing = asyncio.ensure_future(probe())
            done, _ = await asyncio.wait({probing}, timeout=interval_s)
            if probing in done:
                error = None if probing.cancelled() else probing.exception()
            else:
                probing.cancel()
                error = TimeoutError()
            now_healthy = error is None
            if not now_healthy and healthy:
                log.warning("health.dependency_down", error=type(error).__name__)
            if now_healthy != healthy:
                healthy = now_healthy
                await self.listening.set_health(healthy)
                if healthy:
                    log.info("health.dependency_back")

    async def stop(self, grace: float = 0) -> None:
        log.info("server.shutting_down", service=self.service.name, grace_s=grace)
        await self.listening.stop(grace)
        for task in self.tasks:
            task.cancel()
        # A loop that swallows its cancellation must not hold the process:
        # it is named in the log and left behind.
        stuck: set[asyncio.Task] = set()
        if self.tasks:
            _, stuck = await asyncio.wait(self.tasks, timeout=LOOPS_STOP_S)
        for task in stuck:
            log.error("server.loop_did_not_stop", loop=repr(task.get_coro()))
        # Before close: its collectors read the pools close disposes of.
        if self.metrics is not None:
            await self.metrics.stop()
        await self.service.close()
        log.info("server.stopped", service=self.service.name)


async def listen(service: Service, settings: ServiceSettings, listen: str) -> RunningService:
    """Listening, health NOT_SERVING, business calls refused (NOT_READY);
    /metrics served from here on (a booting service's figures count too)."""
    listening = await create_server(
        service.name,
        [(s.full_name, s.add_to_server, s.servicer) for s in service.grpc_services],
        settings=settings,
        listen=listen,
    )
    running = RunningService(service, listening)
    if settings.metrics_listen:
        metrics = MetricsServer(service.name, service.collectors)
        try:
            await metrics.start(settings.metrics_listen)
        except BaseException:
            await listening.stop(0)
            raise
        running.metrics = metrics
    return running


async def start(
    service: Service, settings: ServiceSettings, *, listen: str | None = None
) -> RunningService:
    """Listening, booted and SERVING, its loops running (tests pass
    listen="127.0.0.1:0"). A failed boot closes everything and raises."""
    running = await _listen_or_close(service, settings, listen)
    try:
        await running.become_ready(settings.health_probe_s)
    except BaseException:
        await running.stop(0)
        raise
    return running


async def serve(service: Service, settings: ServiceSettings) -> None:
    """The process: starts, then serves until SIGTERM or SIGINT. The signal
    is honoured during boot too (a service waiting for its migrations)."""
    running = await _listen_or_close(service, settings, None)
    signalled = asyncio.ensure_future(_shutdown_signal())
    booting = asyncio.ensure_future(running.become_ready(settings.health_probe_s))
    try:
        await asyncio.wait({signalled, booting}, return_when=asyncio.FIRST_COMPLETED)
        if booting.done():
            booting.result()  # a failed boot ends the process with its error
            await signalled
    finally:
        booting.cancel()
        signalled.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await booting
        await running.stop(settings.shutdown_grace_s)


async def _listen_or_close(
    service: Service, settings: ServiceSettings, address: str | None
) -> RunningService:
    try:
        return await listen(service, settings, address or settings.listen)
    except BaseException:
        await service.close()
        raise


async def _shutdown_signal() -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()
