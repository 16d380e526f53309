"""Per-person limits: checked when the payment is made and again at the yes."""

import asyncio
import uuid

import grpc

from nod.payments.v1 import payments_pb2 as pb
from nodkit.client import NodRpcError, call_metadata
from nodtest.rpc import expect_error

from .support import confirmed_payment, count_payments, create_payment, create_request


async def set_limits(stub, meta, single=0, daily=0, currency="EUR") -> pb.PaymentLimits:
    request = pb.SetLimitsRequest(max_single_minor=single, max_daily_minor=daily, currency=currency)
    return (await stub.SetLimits(request, metadata=meta)).limits


def confirm(stub, meta, payment_id):
    request = pb.ConfirmPaymentRequest(payment_id=payment_id, decision=pb.DECISION_YES)
    return stub.ConfirmPayment(request, metadata=meta)


async def test_limits_are_set_read_and_removed(payments_stub, as_person):
    assert not (await payments_stub.GetLimits(pb.GetLimitsRequest(), metadata=as_person)).HasField(
        "limits"
    )
    stored = await set_limits(payments_stub, as_person, single=5000, daily=20000)
    read = (await payments_stub.GetLimits(pb.GetLimitsRequest(), metadata=as_person)).limits
    assert read == stored
    assert (read.max_single_minor, read.max_daily_minor, read.currency) == (5000, 20000, "EUR")
    await set_limits(payments_stub, as_person)
    reply = await payments_stub.GetLimits(pb.GetLimitsRequest(), metadata=as_person)
    assert not reply.HasField("limits")


async def test_bad_limits_name_the_field(payments_stub, as_person):
    cases = [
        ({"single": -1}, "max_single_minor"),
        ({"daily": -5}, "max_daily_minor"),
        ({"daily": 100, "currency": "eur"}, "currency"),
        ({"single": 100, "currency": ""}, "currency"),
    ]
    for fields, field in cases:
        await expect_error(
            set_limits(payments_stub, as_person, **fields),
            grpc.StatusCode.INVALID_ARGUMENT,
            field=field,
        )


async def test_a_payment_over_the_single_limit_is_refused(
    payments_stub, payments_engine, as_person, person
):
    await set_limits(payments_stub, as_person, single=5000)
    await create_payment(payments_stub, as_person, amount_minor=5000)
    error = await expect_error(
        payments_stub.CreatePayment(create_request(amount_minor=5001), metadata=as_person),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="LIMIT_EXCEEDED",
    )
    assert error.metadata["limit"] == "single"
    assert await count_payments(payments_engine, person) == 1


async def test_the_daily_limit_counts_what_the_person_said_yes_to(payments_stub, as_person):
    await set_limits(payments_stub, as_person, daily=10000)
    await confirmed_payment(payments_stub, as_person, amount_minor=6000)
    # Refused and unanswered payments don't count.
    refused = await create_payment(payments_stub, as_person, amount_minor=3000)
    await payments_stub.ConfirmPayment(
        pb.ConfirmPaymentRequest(payment_id=refused.id, decision=pb.DECISION_NO),
        metadata=as_person,
    )
    first = await create_payment(payments_stub, as_person, amount_minor=4000)
    second = await create_payment(payments_stub, as_person, amount_minor=4000)
    error = await expect_error(
        payments_stub.CreatePayment(create_request(amount_minor=4001), metadata=as_person),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="LIMIT_EXCEEDED",
    )
    assert error.metadata["limit"] == "daily"

    assert (await confirm(payments_stub, as_person, first.id)).payment.state == (
        pb.PAYMENT_STATE_CONFIRMED
    )
    await expect_error(
        confirm(payments_stub, as_person, second.id),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="LIMIT_EXCEEDED",
    )
    still = await payments_stub.GetPayment(
        pb.GetPaymentRequest(payment_id=second.id), metadata=as_person
    )
    assert still.payment == second


async def test_limits_set_after_the_request_are_checked_at_the_yes(payments_stub, as_person):
    payment = await create_payment(payments_stub, as_person, amount_minor=9000)
    await set_limits(payments_stub, as_person, single=5000)
    await expect_error(
        confirm(payments_stub, as_person, payment.id),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="LIMIT_EXCEEDED",
    )
    await set_limits(payments_stub, as_person, single=9000)
    assert (await confirm(payments_stub, as_person, payment.id)).payment.state == (
        pb.PAYMENT_STATE_CONFIRMED
    )


async def test_a_payment_in_another_currency_cant_be_checked(payments_stub, as_person):
    await set_limits(payments_stub, as_person, daily=10000, currency="EUR")
    await expect_error(
        payments_stub.CreatePayment(create_request(currency="USD"), metadata=as_person),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="LIMIT_CURRENCY_MISMATCH",
    )


async def test_concurrent_yeses_cant_both_squeeze_under_the_daily_limit(
    payments_stub, service_token
):
    for _ in range(10):
        meta = call_metadata(service_token, f"person-{uuid.uuid4().hex[:12]}")
        await set_limits(payments_stub, meta, daily=10000)
        first = await create_payment(payments_stub, meta, amount_minor=6000)
        second = await create_payment(payments_stub, meta, amount_minor=6000)
        results = await asyncio.gather(
            confirm(payments_stub, meta, first.id),
            confirm(payments_stub, meta, second.id),
            return_exceptions=True,
        )
        confirmed = [r for r in results if isinstance(r, pb.ConfirmPaymentResponse)]
        refused = [NodRpcError(r) for r in results if isinstance(r, grpc.aio.AioRpcError)]
        assert len(confirmed) == 1
        assert [e.reason for e in refused] == ["LIMIT_EXCEEDED"]
