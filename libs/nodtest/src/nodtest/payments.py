"""Fixtures and builders for the payments service: migrated schema, an
in-process server, payments in each state, service processes, and reading
the service's own tables for what a caller can't see (its history)."""

import asyncio
import uuid

import pytest
import sqlalchemy as sa

from nod.payments.v1 import payments_pb2 as pb
from nod.payments.v1 import payments_pb2_grpc
from nodkit import service
from nodkit.client import open_channel
from nodkit.db import create_engine
from nodtest.processes import ServiceProcess, free_port, wait_until_serving

SHOP = "https://shop.example"
CARD_LABEL = "•••• 4242"


@pytest.fixture(scope="session")
def payments_migrated(database_url) -> str:
    from nod_payments import MIGRATIONS

    MIGRATIONS.upgrade(database_url)
    return database_url


def payments_settings(database_url, service_token, **overrides):
    from nod_payments.settings import PaymentsSettings

    values = {"instance_id": "payments-test", **overrides}
    return PaymentsSettings(database_url=database_url, service_token=service_token, **values)


@pytest.fixture(scope="session")
async def payments_engine(payments_migrated, service_token):
    """The payments schema, for asserting on rows and history."""
    from nod_payments import SCHEMA

    engine = create_engine(payments_settings(payments_migrated, service_token), SCHEMA)
    yield engine
    await engine.dispose()


async def start_payments_server(database_url, service_token, **overrides):
    """An in-process server on a free port, SERVING; returns (address, stop)."""
    from nod_payments.wiring import build

    settings = payments_settings(database_url, service_token, **overrides)
    running = await service.start(await build(settings), settings, listen="127.0.0.1:0")
    return running.address, running.stop


@pytest.fixture(scope="session")
async def payments_server(payments_migrated, service_token, log_tee):
    # Sweeps only at boot, so the process tests decide who sweeps what.
    address, stop = await start_payments_server(
        payments_migrated, service_token, sweep_interval_s=3600
    )
    yield address
    await stop()


@pytest.fixture(scope="session")
async def payments_stub(payments_server):
    channel = open_channel(payments_server)
    yield payments_pb2_grpc.PaymentsServiceStub(channel)
    await channel.close()


@pytest.fixture
async def payments_stub_with(payments_migrated, service_token):
    """stub_with(**settings): a stub for a fresh in-process server with those
    settings (an instance id of its own), stopped after the test."""
    cleanups = []

    async def start(**overrides):
        overrides.setdefault("instance_id", f"payments-test-{uuid.uuid4().hex[:8]}")
        address, stop = await start_payments_server(payments_migrated, service_token, **overrides)
        channel = open_channel(address)
        cleanups.extend([channel.close, stop])
        return payments_pb2_grpc.PaymentsServiceStub(channel)

    yield start
    for cleanup in cleanups:
        await cleanup()


@pytest.fixture
def payments_processes(payments_migrated, service_env, tmp_path):
    """start(instance_id, **settings) -> (process, address); all killed at the end."""
    started: list[ServiceProcess] = []

    async def start(instance_id: str, address: str | None = None, **settings):
        address = address or f"127.0.0.1:{free_port()}"
        env = {
            **service_env,
            "NOD_INSTANCE_ID": instance_id,
            "NOD_PAYMENTS_LISTEN": address,
            **{f"NOD_PAYMENTS_{k.upper()}": str(v) for k, v in settings.items()},
        }
        process = ServiceProcess("nod_payments", env, tmp_path / f"{instance_id}.log")
        process.start()
        started.append(process)
        await wait_until_serving(address)
        return process, address

    yield start
    for process in started:
        process.stop()


# Builders


def create_request(**overrides) -> pb.CreatePaymentRequest:
    values = {
        "task_id": f"task-{uuid.uuid4().hex[:8]}",
        "merchant_origin": SHOP,
        "amount_minor": 2599,
        "currency": "EUR",
        "description": "1 × blue teapot",
        "card_item_id": str(uuid.uuid4()),
        "card_label": CARD_LABEL,
        **overrides,
    }
    return pb.CreatePaymentRequest(**values)


async def create_payment(stub, meta, **overrides) -> pb.Payment:
    reply = await stub.CreatePayment(create_request(**overrides), metadata=meta)
    return reply.payment


async def confirmed_payment(stub, meta, **overrides) -> pb.Payment:
    payment = await create_payment(stub, meta, **overrides)
    request = pb.ConfirmPaymentRequest(payment_id=payment.id, decision=pb.DECISION_YES)
    return (await stub.ConfirmPayment(request, metadata=meta)).payment


async def running_payment(stub, meta, **overrides) -> pb.Payment:
    payment = await confirmed_payment(stub, meta, **overrides)
    request = pb.StartCardEntryRequest(payment_id=payment.id)
    return (await stub.StartCardEntry(request, metadata=meta)).payment


async def submitted_payment(stub, meta, **overrides) -> pb.Payment:
    payment = await running_payment(stub, meta, **overrides)
    request = pb.RecordSubmittedRequest(payment_id=payment.id, claim_id=str(uuid.uuid4()))
    return (await stub.RecordSubmitted(request, metadata=meta)).payment


async def uncertain_payment(stub, meta, **overrides) -> pb.Payment:
    payment = await running_payment(stub, meta, **overrides)
    request = pb.RecordUncertainRequest(payment_id=payment.id, reason="the page stopped answering")
    return (await stub.RecordUncertain(request, metadata=meta)).payment


async def get_payment(stub, meta, payment_id: str) -> pb.Payment:
    reply = await stub.GetPayment(pb.GetPaymentRequest(payment_id=payment_id), metadata=meta)
    return reply.payment


async def wait_for_state(stub, meta, payment_id: str, state, timeout_s: float = 15.0):
    """Polls until the payment is in `state`; fails with the last one seen."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    while True:
        payment = await get_payment(stub, meta, payment_id)
        if payment.state == state:
            return payment
        if asyncio.get_running_loop().time() > deadline:
            name = pb.PaymentState.Name(payment.state)
            raise AssertionError(f"payment {payment_id} still {name} after {timeout_s}s")
        await asyncio.sleep(0.05)


async def transitions(engine, payment_id: str) -> list[tuple[str | None, str, str]]:
    """The payment's history as (from, to, actor), oldest first."""
    query = sa.text(
        "SELECT from_state, to_state, actor FROM payments.payment_events"
        " WHERE payment_id = :id ORDER BY id"
    )
    async with engine.connect() as conn:
        return [tuple(row) for row in await conn.execute(query, {"id": payment_id})]


async def count_payments(engine, owner: str) -> int:
    query = sa.text("SELECT count(*) FROM payments.payments WHERE owner = :owner")
    async with engine.connect() as conn:
        return (await conn.execute(query, {"owner": owner})).scalar_one()
