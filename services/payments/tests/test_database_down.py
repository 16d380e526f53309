"""Payments while its database is stopped or frozen mid-flow (a confirmed
payment, its card entry about to start): no call outlives its deadline (plus
a second), health turns NOT_SERVING and comes back by itself, and no card
entry starts without a committed record: the payment stays CONFIRMED
through the outage and starts once, after it."""

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from nod.payments.v1 import payments_pb2 as pb
from nod.payments.v1 import payments_pb2_grpc
from nodkit.client import open_channel
from nodtest.fault_proxy import PostgresFaultProxy
from nodtest.outage import failing_within, wait_for_health

from .conftest import start_payments_server
from .support import confirmed_payment, get_payment

CALL_LIMIT_S = 2.0
DEADLINE_S = 1.0
UNKNOWN_OUTCOME = (grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNAVAILABLE)


async def health_of(address: str) -> int:
    async with open_channel(address) as channel:
        reply = await health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(), timeout=2
        )
        return reply.status


SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


async def no_entry_starts_during_the_outage(address, stub, as_person, start, end) -> None:
    payment = await confirmed_payment(stub, as_person)
    await wait_for_health(lambda: health_of(address), SERVING)
    begin = pb.StartCardEntryRequest(payment_id=payment.id)

    start()
    code, _, _ = await failing_within(
        stub.StartCardEntry(begin, metadata=as_person, timeout=DEADLINE_S), DEADLINE_S + 1
    )
    assert code in UNKNOWN_OUTCOME
    # Without a deadline of its own a call ends within the service's limit
    # (plus the driver's bounded clean-up of a cut-off statement).
    code, _, _ = await failing_within(
        stub.StartCardEntry(begin, metadata=as_person), CALL_LIMIT_S + 15
    )
    assert code in UNKNOWN_OUTCOME
    await wait_for_health(lambda: health_of(address), NOT_SERVING)

    end()
    await wait_for_health(lambda: health_of(address), SERVING)
    current = await get_payment(stub, as_person, payment.id)
    assert current.state == pb.PAYMENT_STATE_CONFIRMED, "an entry started during the outage"
    started = await stub.StartCardEntry(begin, metadata=as_person, timeout=15)
    assert started.payment.state == pb.PAYMENT_STATE_RUNNING


async def run_outage(payments_migrated, service_token, claims, as_person, name, outage) -> None:
    proxy = await PostgresFaultProxy.for_url(payments_migrated)
    running = await start_payments_server(
        proxy.url_for(payments_migrated),
        service_token,
        instance_id=name,
        # Where the card entry is bound when it starts.
        claims_addr=claims.address,
        db_call_timeout_s=CALL_LIMIT_S,
        health_probe_s=0.3,
    )
    channel = open_channel(running.address)
    stub = payments_pb2_grpc.PaymentsServiceStub(channel)
    start, end = outage(proxy)
    try:
        await no_entry_starts_during_the_outage(running.address, stub, as_person, start, end)
    finally:
        end()
        await channel.close()
        await running.stop()
        await proxy.close()


async def test_a_frozen_database_hangs_no_call_and_starts_no_entry(
    payments_migrated, service_token, claims_peer, log_tee, as_person
):
    await run_outage(
        payments_migrated,
        service_token,
        claims_peer,
        as_person,
        "payments-frozen-db",
        lambda proxy: (proxy.freeze, proxy.thaw),
    )


async def test_a_stopped_database_fails_calls_fast_and_starts_no_entry(
    payments_migrated, service_token, claims_peer, log_tee, as_person
):
    await run_outage(
        payments_migrated,
        service_token,
        claims_peer,
        as_person,
        "payments-stopped-db",
        lambda proxy: (proxy.stop, proxy.resume),
    )
