"""The gRPC server under every nod service: the interceptor chain, health and
reflection, listening with health NOT_SERVING until told otherwise, over TLS
when the settings give a certificate (nodkit.tls). nodkit.service drives it;
nothing else creates a server.

With NOD_HEALTH_LISTEN set, a second, plaintext listener answers
grpc.health.v1 only, from the same health servicer: the kubelet's native
gRPC probe speaks no TLS, so it can't ask the main port once TLS is on.
Health reveals no data and takes no token, so nothing else is exposed.

Health's "" and each gRPC service's name say whether calls are let in
(readiness). LIVENESS says only that the process answers: SERVING from the
first moment until shutdown, so a liveness probe doesn't restart a service
that waits for its migrations or its database (it would wait again)."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
from grpc_health.v1 import _async as health_aio
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from nodkit import tracing
from nodkit.interceptors import NodServerInterceptor, Readiness
from nodkit.logging import get_logger
from nodkit.settings import ServiceSettings
from nodkit.version import version_metadata

log = get_logger("nodkit.server")

# Big enough for a page read and its forms; bounded so a bad caller can't eat memory.
MAX_MESSAGE_BYTES = 8 * 1024 * 1024
# Callers spread calls over the replicas their channel's name resolves to
# (round_robin), and resolve it again when a connection ends: a connection
# is ended (GOAWAY) after MAX_CONNECTION_AGE_MS, so a replica added since is
# found within minutes. Calls under way finish first, up to the grace, which
# outlasts the longest call (a private entry's page, a model's answer).
MAX_CONNECTION_AGE_MS = 5 * 60 * 1000
MAX_CONNECTION_AGE_GRACE_MS = 10 * 60 * 1000
SERVER_OPTIONS = [
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
    ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
    ("grpc.so_reuseport", 0),
    ("grpc.max_connection_age_ms", MAX_CONNECTION_AGE_MS),
    ("grpc.max_connection_age_grace_ms", MAX_CONNECTION_AGE_GRACE_MS),
]
SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
LIVENESS = "liveness"

# (full service name, generated add_*_to_server, servicer)
Registration = tuple[str, Callable[[Any, grpc.aio.Server], None], object]


@dataclass
class Listening:
    server: grpc.aio.Server
    port: int
    health: Any  # grpc_health's aio HealthServicer
    readiness: Readiness
    names: Sequence[str]
    # The plaintext health-only listener (NOD_HEALTH_LISTEN), if any.
    health_server: grpc.aio.Server | None = None
    health_port: int | None = None
    # Where it listens, with the port it got ("127.0.0.1:0" asks for any).
    address: str = ""
    # "mutual", "server" or "off".
    tls: str = "off"

    async def set_health(self, serving: bool) -> None:
        for name in ("", *self.names):
            await self.health.set(name, SERVING if serving else NOT_SERVING)

    async def set_serving(self, serving: bool) -> None:
        """Ready means business calls are let in and health says SERVING."""
        self.readiness.ready = serving
        await self.set_health(serving)

    async def stop(self, grace: float) -> None:
        await self.health.enter_graceful_shutdown()
        self.readiness.ready = False
        await self.server.stop(grace)
        if self.health_server is not None:
            await self.health_server.stop(0)


async def create_server(
    name: str,
    registrations: Sequence[Registration],
    *,
    settings: ServiceSettings,
    listen: str,
) -> Listening:
    readiness = Readiness()
    tls = settings.tls()
    if tls is not None:
        tls.check_names(name)
    names = [full_name for full_name, _, _ in registrations]
    interceptor = NodServerInterceptor(
        service=name,
        callers=settings.callers(),
        readiness=readiness,
        certificates=tls is not None and tls.require_client_cert,
        version=version_metadata(name, names),
    )
    server = grpc.aio.server(
        interceptors=[*tracing.server_interceptors(), interceptor], options=SERVER_OPTIONS
    )
    for _, add_to_server, servicer in registrations:
        add_to_server(servicer, server)
    health_servicer = health_aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (*names, health.SERVICE_NAME, reflection.SERVICE_NAME), server
    )
    if tls is None:
        port = server.add_insecure_port(listen)
    else:
        port = server.add_secure_port(listen, tls.server_credentials())
    if port == 0:
        raise RuntimeError(f"could not listen on {listen}")
    listening = Listening(
        server,
        port,
        health_servicer,
        readiness,
        names,
        address=f"{listen.rpartition(':')[0]}:{port}",
        tls="mutual" if tls and tls.require_client_cert else "server" if tls else "off",
    )
    await health_servicer.set(LIVENESS, SERVING)
    await listening.set_serving(False)
    await server.start()
    # DEBUG: the line a person reads is "serving", once booted (nodkit.service).
    log.debug("server.listening", service=name, address=listening.address, tls=listening.tls)
    if settings.health_listen:
        try:
            listening.health_server, listening.health_port = await _serve_health_only(
                health_servicer, settings.health_listen
            )
        except BaseException:
            await server.stop(0)
            raise
        log.info("server.health_listening", service=name, address=settings.health_listen)
    return listening


async def _serve_health_only(health_servicer: Any, listen: str) -> tuple[grpc.aio.Server, int]:
    server = grpc.aio.server(options=SERVER_OPTIONS)
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    port = server.add_insecure_port(listen)
    if port == 0:
        raise RuntimeError(f"could not listen on {listen} for health")
    await server.start()
    return server, port
