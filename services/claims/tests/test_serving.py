"""The service's life as an operator sees it: NOT_SERVING until its
migrations are at head and the boot reconcile ran, reflection for tools,
graceful stop on SIGTERM, and migrations that match the models."""

import asyncio
import json
import signal

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from nod.claims.v1 import claims_pb2 as pb
from nod.claims.v1 import claims_pb2_grpc
from nodkit.client import open_channel
from nodtest.browser import poll
from nodtest.database import create_test_database, drop_test_database, migration_drift
from nodtest.processes import ServiceProcess, free_port, run_migrate, wait_until_serving
from nodtest.rpc import expect_error


async def health_of(channel, service="") -> int:
    stub = health_pb2_grpc.HealthStub(channel)
    reply = await stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=2)
    return reply.status


async def test_not_serving_until_migrated_then_serving(service_env, as_person, tmp_path):
    database_url = create_test_database()
    port = free_port()
    env = {
        **service_env,
        "NOD_DATABASE_URL": database_url,
        "NOD_CLAIMS_LISTEN": f"127.0.0.1:{port}",
        "NOD_MIGRATION_POLL_S": "0.2",
    }
    process = ServiceProcess("nod_claims", env, tmp_path / "claims.log")
    process.start()
    try:
        async with open_channel(f"127.0.0.1:{port}") as channel:
            status = None
            # A process start is seconds of CPU: far more beside other tests.
            for _ in range(600):
                try:
                    status = await health_of(channel, "nod.claims.v1.ClaimsService")
                    break
                except grpc.aio.AioRpcError:
                    await asyncio.sleep(0.1)
            assert status == health_pb2.HealthCheckResponse.NOT_SERVING
            stub = claims_pb2_grpc.ClaimsServiceStub(channel)
            await expect_error(
                stub.GetClaim(pb.GetClaimRequest(claim_id="x"), metadata=as_person),
                grpc.StatusCode.UNAVAILABLE,
                reason="NOT_READY",
            )
            # Said as the process starts waiting, which may come after health answers.
            await poll(
                lambda: "migrations.behind" in process.log_text(),
                timeout_s=30,
                what="the log to say the migrations are behind",
            )

            run_migrate("nod_claims", env)
            await wait_until_serving(f"127.0.0.1:{port}", timeout_s=20)
            assert await health_of(channel, "nod.claims.v1.VaultService") == (
                health_pb2.HealthCheckResponse.SERVING
            )
            items = await claims_pb2_grpc.VaultServiceStub(channel).ListItems(
                pb.ListItemsRequest(), metadata=as_person
            )
            assert list(items.items) == []

            assert process.kill(signal.SIGTERM) == 0
            log = process.log_text()
            assert "server.shutting_down" in log and "server.stopped" in log
    finally:
        process.stop()
        drop_test_database(database_url)


async def test_reflection_lists_the_services(claims_channel):
    stub = reflection_pb2_grpc.ServerReflectionStub(claims_channel)

    async def requests():
        yield reflection_pb2.ServerReflectionRequest(list_services="")

    async for reply in stub.ServerReflectionInfo(requests()):
        names = {s.name for s in reply.list_services_response.service}
        break
    assert {
        "nod.claims.v1.ClaimsService",
        "nod.claims.v1.VaultService",
        "grpc.health.v1.Health",
    } <= names


def test_migrations_match_the_models(claims_migrated):
    from nod_claims import SCHEMA
    from nod_claims.store.models import metadata

    assert migration_drift(claims_migrated, metadata, SCHEMA) == []


async def test_calls_are_counted_and_only_failed_or_slow_ones_logged_at_info(
    claims_stub, vault_stub, as_person, log_tee
):
    from nodkit import metrics

    before = metrics.totals()
    await vault_stub.ListItems(pb.ListItemsRequest(), metadata=as_person)
    await expect_error(
        claims_stub.GetClaim(pb.GetClaimRequest(claim_id="nope"), metadata=as_person),
        grpc.StatusCode.INVALID_ARGUMENT,
    )
    failed = "/nod.claims.v1.ClaimsService/GetClaim INVALID_ARGUMENT"

    async def counted():
        # A call is counted once its handler is done, which may be just
        # after its caller has the answer.
        after = metrics.totals()
        counts = {key: after[key] - before.get(key, 0) for key in after}
        return counts if counts.get(failed) else None

    counts = await poll(counted, timeout_s=10, what="the failed call counted")
    assert counts["/nod.claims.v1.VaultService/ListItems OK"] >= 1
    assert counts[failed] == 1
    logged = [line for line in log_tee.lines if '"rpc.call"' in line]
    assert any("GetClaim" in line and "INVALID_ARGUMENT" in line for line in logged)
    # A call that went well is logged only when it was slow (as on a loaded
    # machine): then the line says how slow.
    from nodkit.interceptors import SLOW_CALL_MS

    fine = [json.loads(line) for line in logged if "ListItems" in line and '"OK"' in line]
    assert all(call["duration_ms"] >= SLOW_CALL_MS for call in fine), fine
