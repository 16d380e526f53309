"""NOD_HEALTH_LISTEN: a plaintext listener that answers grpc.health.v1 only,
with the same answers as the main port (the kubelet's gRPC probe speaks no
TLS, so it asks here once the main port has TLS)."""

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from nodkit.server import LIVENESS
from nodkit.service import Service, start
from nodkit.settings import ServiceSettings

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


async def health_at(port: int, service: str = "") -> int:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        reply = await stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=2)
        return reply.status


async def test_the_health_port_answers_like_the_main_port_and_nothing_else():
    settings = ServiceSettings(service_token="t" * 32, health_listen="127.0.0.1:0")
    running = await start(Service(name="example", grpc_services=[]), settings, listen="127.0.0.1:0")
    health_port = running.listening.health_port
    try:
        assert health_port is not None and health_port != running.port
        assert await health_at(health_port) == SERVING
        assert await health_at(running.port) == SERVING
        async with grpc.aio.insecure_channel(f"127.0.0.1:{health_port}") as channel:
            reflection = reflection_pb2_grpc.ServerReflectionStub(channel)

            async def ask():
                yield reflection_pb2.ServerReflectionRequest(list_services="")

            with pytest.raises(grpc.aio.AioRpcError) as refused:
                async for _ in reflection.ServerReflectionInfo(ask(), timeout=2):
                    pass
            assert refused.value.code() == grpc.StatusCode.UNIMPLEMENTED
        await running.listening.set_health(False)
        assert await health_at(health_port) == NOT_SERVING
        # Not ready (the database is down), yet alive: no restart wanted.
        assert await health_at(health_port, LIVENESS) == SERVING
    finally:
        await running.stop(0)
    with pytest.raises(grpc.aio.AioRpcError):
        await health_at(health_port)


async def test_without_the_setting_there_is_no_health_port():
    settings = ServiceSettings(service_token="t" * 32)
    running = await start(Service(name="example", grpc_services=[]), settings, listen="127.0.0.1:0")
    try:
        assert running.listening.health_port is None
        assert await health_at(running.port) == SERVING
    finally:
        await running.stop(0)
