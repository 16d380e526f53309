"""create_server() -> the server and its port, and the life of a service process.

A service is served in this order (STYLE.md 7, DESIGN.md G12):
  listen with health NOT_SERVING and business calls refused
  -> wait until its migrations are at head
  -> boot reconcile (its own running records become UNCERTAIN)
  -> SERVING, background work starts
  -> on SIGTERM: NOT_SERVING, in-flight calls get a grace period, then stop.
"""

import asyncio
import signal
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from pydantic import SecretStr

from nodkit.interceptors import NodServerInterceptor, Readiness
from nodkit.logging import get_logger

log = get_logger("nodkit.server")

# Big enough for a page read and its forms; bounded so a bad caller can't eat memory.
MAX_MESSAGE_BYTES = 8 * 1024 * 1024
SERVER_OPTIONS = [
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
    ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
    ("grpc.so_reuseport", 0),
]


@dataclass
class ServiceDefinition:
    """What a service hands to nodkit: its name, the full names of its gRPC
    services (for health and reflection), and how to add their servicers."""

    name: str
    grpc_services: Sequence[str]
    register: Callable[[grpc.aio.Server], None]


@dataclass
class RunningServer:
    server: grpc.aio.Server
    port: int
    health: health.aio.HealthServicer
    readiness: Readiness
    grpc_services: Sequence[str] = field(default_factory=list)

    async def mark_serving(self) -> None:
        self.readiness.ready = True
        for name in ("", *self.grpc_services):
            await self.health.set(name, health_pb2.HealthCheckResponse.SERVING)

    async def stop(self, grace: float) -> None:
        await self.health.enter_graceful_shutdown()
        self.readiness.ready = False
        await self.server.stop(grace)


async def create_server(
    definition: ServiceDefinition, *, token: SecretStr, listen: str
) -> RunningServer:
    """The server (on port 0 in tests), listening with health NOT_SERVING;
    `.server` and `.port` on the result, mark_serving() once ready."""
    readiness = Readiness()
    server = grpc.aio.server(
        interceptors=[
            NodServerInterceptor(service=definition.name, token=token, readiness=readiness)
        ],
        options=SERVER_OPTIONS,
    )
    definition.register(server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    for name in ("", *definition.grpc_services):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
    reflection.enable_server_reflection(
        (*definition.grpc_services, health.SERVICE_NAME, reflection.SERVICE_NAME), server
    )
    port = server.add_insecure_port(listen)
    if port == 0:
        raise RuntimeError(f"could not listen on {listen}")
    await server.start()
    log.info("server.listening", address=listen, port=port)
    return RunningServer(server, port, health_servicer, readiness, definition.grpc_services)


async def wait_for_shutdown_signal() -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()


async def serve_until_signalled(
    running: RunningServer,
    *,
    prepare: Callable[[], Awaitable[None]],
    background: Sequence[Callable[[], Awaitable[None]]] = (),
    grace: float,
) -> None:
    """prepare() waits for migrations and runs the boot reconcile; only then
    does the service report SERVING and start its background loops. A failed
    prepare() stops the server (and the process exits with the error)."""
    signalled = asyncio.ensure_future(wait_for_shutdown_signal())
    preparing = asyncio.ensure_future(prepare())
    tasks: list[asyncio.Task] = []
    try:
        await asyncio.wait({signalled, preparing}, return_when=asyncio.FIRST_COMPLETED)
        if preparing.done():
            preparing.result()
            await running.mark_serving()
            log.info("server.serving", port=running.port)
            tasks = [asyncio.ensure_future(loop()) for loop in background]
            await signalled
    finally:
        preparing.cancel()
        signalled.cancel()
        log.info("server.shutting_down", grace_s=grace)
        await running.stop(grace)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        log.info("server.stopped")
