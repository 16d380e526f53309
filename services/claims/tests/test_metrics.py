"""/metrics of a claims service, scraped as Prometheus scrapes it: the claims
by state as the table holds them, each call counted by method and status
with its latency observed, claims ended UNCERTAIN counted once, the sweep,
the pools; nothing private in any of it. Then the port closes with the
service."""

import asyncio

import psycopg
import pytest

from nod.claims.v1 import claims_pb2 as pb
from nod.claims.v1 import claims_pb2_grpc
from nod_claims import SCHEMA
from nod_claims.domain.claims import ClaimState
from nod_claims.store.models import claims as claims_table
from nod_claims.wiring import build
from nodkit import service
from nodkit.client import open_channel
from nodkit.db import create_engine
from nodkit.metrics_collectors import DatabaseFigures, StateCount
from nodkit.metrics_server import MetricsServer
from nodtest.claims import CANARY_PASSWORD, put_login
from nodtest.database import libpq_url
from nodtest.metrics import Scrape, scrape, scrape_until

from .conftest import claims_settings
from .support import claim_request, live_holder

CLAIM = "/nod.claims.v1.ClaimsService/Claim"
STATES = ("running", "submitted", "uncertain")


@pytest.fixture
async def claims_metered(claims_migrated, service_token, vault_key, log_tee):
    """A claims service serving /metrics on a free port: (running, stubs)."""
    settings = claims_settings(
        claims_migrated,
        service_token,
        vault_key,
        instance_id="claims-metrics",
        metrics_listen="127.0.0.1:0",
        sweep_interval_s=3600,
    )
    running = await service.start(await build(settings), settings, listen="127.0.0.1:0")
    channel = open_channel(running.address)
    yield (
        running,
        claims_pb2_grpc.ClaimsServiceStub(channel),
        claims_pb2_grpc.VaultServiceStub(channel),
    )
    await channel.close()
    await running.stop()


def claims_by_state(database_url: str) -> dict[str, int]:
    with psycopg.connect(libpq_url(database_url)) as conn:
        rows = conn.execute("SELECT state, count(*) FROM claims.claims GROUP BY state").fetchall()
    return {state: 0 for state in STATES} | dict(rows)


def records(got: Scrape) -> dict[str, int]:
    return {
        state: int(got.value("nod_records", service="claims", record="claim", state=state))
        for state in STATES
    }


async def test_metrics_show_the_claims_as_the_database_holds_them(
    claims_metered, claims_migrated, as_person, person
):
    running, claims, vault = claims_metered
    address = f"127.0.0.1:{running.metrics_port}"
    before = await scrape(address)
    item = await put_login(vault, as_person)
    holder = await live_holder(claims, as_person)
    made = []
    for _ in range(3):
        reply = await claims.Claim(claim_request(item, holder), metadata=as_person)
        assert reply.granted
        made.append(reply.claim)
    await claims.MarkSubmitted(
        pb.MarkSubmittedRequest(claim_id=made[0].id, holder=holder), metadata=as_person
    )
    await claims.MarkUncertain(
        pb.MarkUncertainRequest(claim_id=made[1].id, holder=holder, reason="cut off"),
        metadata=as_person,
    )
    # The same end again changes nothing, and counts nothing.
    await claims.MarkUncertain(
        pb.MarkUncertainRequest(claim_id=made[1].id, holder=holder, reason="cut off"),
        metadata=as_person,
    )
    in_table = claims_by_state(claims_migrated)

    # The database figures are cached a few seconds: a later scrape shows them.
    after = await scrape_until(address, lambda got: records(got) == in_table)
    assert in_table["running"] >= 1 and in_table["submitted"] >= 1 and in_table["uncertain"] >= 1

    calls = after.value("nod_rpc_calls_total", method=CLAIM, code="OK")
    assert calls - before.value("nod_rpc_calls_total", method=CLAIM, code="OK") == 3
    observed = after.value("nod_rpc_duration_seconds_count", method=CLAIM)
    assert observed - before.value("nod_rpc_duration_seconds_count", method=CLAIM) == 3
    seconds = after.value("nod_rpc_duration_seconds_bucket", method=CLAIM, le="30.0")
    assert seconds == observed  # no claim took 30 s
    assert after.value("nod_rpc_duration_seconds_sum", method=CLAIM) > 0
    uncertain = after.value("nod_uncertain_total", record="claims")
    assert uncertain - before.value("nod_uncertain_total", record="claims") == 1

    # The boot sweep of this instance, counted.
    assert after.value("nod_sweeps_total", service="claims", kind="boot") >= 1
    # Both pools, and none of their connections left checked out by a scrape.
    for pool in ("engine", "hot_path"):
        assert after.value("nod_db_pool_size", service="claims", pool=pool) >= 1
        assert after.has("nod_db_pool_in_use")
    assert after.value("nod_db_pool_waiting", service="claims", pool="hot_path") == 0
    assert after.has("process_resident_memory_bytes")

    for private in (CANARY_PASSWORD, item.id, holder, made[0].id, person):
        assert private not in after.text


async def test_a_down_database_costs_a_scrape_its_figures_only(
    claims_migrated, service_token, vault_key
):
    """The database reads have a deadline: a database that does not answer
    leaves the records out and counts a failed read; the scrape still answers."""
    # Nothing listens on port 1: every connection is refused at once.
    settings = claims_settings(
        claims_migrated.replace("127.0.0.1:5432", "127.0.0.1:1"), service_token, vault_key
    )
    engine = create_engine(settings, SCHEMA)
    figures = DatabaseFigures(
        "claims", engine, states=[StateCount("claim", claims_table, tuple(ClaimState))]
    )
    server = MetricsServer("claims", [figures])
    port = await server.start("127.0.0.1:0")
    try:
        got = await asyncio.wait_for(scrape(f"127.0.0.1:{port}"), 30)
        assert not got.has("nod_records")
        assert got.value("nod_metrics_read_failures_total", service="claims") >= 1
    finally:
        await server.stop()
        await engine.dispose()


async def test_the_metrics_port_closes_with_the_service(
    claims_migrated, service_token, vault_key, log_tee
):
    settings = claims_settings(
        claims_migrated, service_token, vault_key, metrics_listen="127.0.0.1:0"
    )
    running = await service.start(await build(settings), settings, listen="127.0.0.1:0")
    port = running.metrics_port
    assert (await scrape(f"127.0.0.1:{port}")).has("process_resident_memory_bytes")
    await running.stop()
    with pytest.raises(OSError):
        await asyncio.open_connection("127.0.0.1", port)


async def answer_to(port: int, request_line: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request_line + b"\r\nHost: x\r\nConnection: close\r\n\r\n")
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    return answer


async def test_only_get_metrics_is_answered(claims_metered):
    running, _, _ = claims_metered
    port = running.metrics_port
    assert (await answer_to(port, b"GET /anything-else HTTP/1.1")).startswith(b"HTTP/1.1 404")
    assert (await answer_to(port, b"POST /metrics HTTP/1.1")).startswith(b"HTTP/1.1 405")
    head = await answer_to(port, b"HEAD /metrics HTTP/1.1")
    assert head.startswith(b"HTTP/1.1 200") and b"nod_" not in head
