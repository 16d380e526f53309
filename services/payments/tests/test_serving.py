"""The service as an operator sees it: NOT_SERVING until its migrations are
at head and the boot reconcile ran, reflection for tools, a graceful stop on
SIGTERM, and migrations that match the models."""

import asyncio
import signal

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from nod.payments.v1 import payments_pb2 as pb
from nod.payments.v1 import payments_pb2_grpc
from nodkit.client import open_channel
from nodtest.database import create_test_database, drop_test_database, migration_drift
from nodtest.processes import ServiceProcess, free_port, run_migrate, wait_until_serving
from nodtest.rpc import expect_error

SERVICE = "nod.payments.v1.PaymentsService"


async def health_of(channel, service: str = SERVICE) -> int:
    stub = health_pb2_grpc.HealthStub(channel)
    reply = await stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=2)
    return reply.status


async def first_health(channel, timeout_s: float = 20.0) -> int:
    deadline = asyncio.get_running_loop().time() + timeout_s
    while True:
        try:
            return await health_of(channel)
        except grpc.aio.AioRpcError:
            if asyncio.get_running_loop().time() > deadline:
                raise
            await asyncio.sleep(0.1)


async def test_not_serving_until_migrated_then_serving(service_env, as_person, tmp_path):
    database_url = create_test_database()
    address = f"127.0.0.1:{free_port()}"
    env = {
        **service_env,
        "NOD_DATABASE_URL": database_url,
        "NOD_PAYMENTS_LISTEN": address,
        "NOD_MIGRATION_POLL_S": "0.2",
    }
    process = ServiceProcess("nod_payments", env, tmp_path / "payments.log")
    process.start()
    try:
        async with open_channel(address) as channel:
            assert await first_health(channel) == health_pb2.HealthCheckResponse.NOT_SERVING
            stub = payments_pb2_grpc.PaymentsServiceStub(channel)
            await expect_error(
                stub.ListPayments(pb.ListPaymentsRequest(), metadata=as_person),
                grpc.StatusCode.UNAVAILABLE,
                reason="NOT_READY",
            )
            run_migrate("nod_payments", env)
            await wait_until_serving(address, timeout_s=20)
            reply = await stub.ListPayments(pb.ListPaymentsRequest(), metadata=as_person)
            assert list(reply.payments) == []

            assert process.kill(signal.SIGTERM) == 0
            log = process.log_text()
            assert "migrations.behind" in log
            assert "server.shutting_down" in log and "server.stopped" in log
    finally:
        process.stop()
        drop_test_database(database_url)


async def test_reflection_lists_the_service(payments_server):
    async with open_channel(payments_server) as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)

        async def requests():
            yield reflection_pb2.ServerReflectionRequest(list_services="")

        async for reply in stub.ServerReflectionInfo(requests()):
            names = {s.name for s in reply.list_services_response.service}
            break
    assert {SERVICE, "grpc.health.v1.Health"} <= names


def test_migrations_match_the_models(payments_migrated):
    from nod_payments import SCHEMA
    from nod_payments.store.models import metadata

    assert migration_drift(payments_migrated, metadata, SCHEMA) == []
