"""One request, one payment: a resent CreatePayment (a lost reply, a retried
step) answers the payment its first request made; a request_id reused for
other content is refused. The database's unique key decides, not a read."""

import asyncio
import uuid

import grpc

from nod.payments.v1 import payments_pb2 as pb
from nodkit.client import call_metadata
from nodtest.rpc import expect_error

from .support import count_payments, create_request, transitions


def create(stub, meta, request):
    return stub.CreatePayment(request, metadata=meta)


async def test_a_resend_answers_the_first_payment(
    payments_stub, payments_engine, as_person, person
):
    request = create_request(
        hosted_payment_origins=["https://pay.provider.example", "https://3ds.bank.example"]
    )
    first = (await create(payments_stub, as_person, request)).payment
    assert first.request_id == request.request_id
    # The same content, as another caller might spell it.
    respelled = pb.CreatePaymentRequest()
    respelled.CopyFrom(request)
    respelled.merchant_origin = "HTTPS://Shop.Example:443/"
    respelled.description = f"  {request.description} "
    respelled.hosted_payment_origins[:] = [
        "https://3ds.bank.example",
        "HTTPS://pay.provider.example",
        "https://shop.example",
    ]
    for again in (request, respelled):
        assert (await create(payments_stub, as_person, again)).payment == first
    assert await count_payments(payments_engine, person) == 1
    assert len(await transitions(payments_engine, first.id)) == 1


async def test_a_resend_after_the_yes_still_answers_the_first_payment(payments_stub, as_person):
    """Even when the day's total would refuse it now: it is not a new payment."""
    await payments_stub.SetLimits(
        pb.SetLimitsRequest(max_daily_minor=3000, currency="EUR"), metadata=as_person
    )
    request = create_request(amount_minor=2500)
    first = (await create(payments_stub, as_person, request)).payment
    confirmed = await payments_stub.ConfirmPayment(
        pb.ConfirmPaymentRequest(payment_id=first.id, decision=pb.DECISION_YES),
        metadata=as_person,
    )
    again = (await create(payments_stub, as_person, request)).payment
    assert again == confirmed.payment


async def test_a_request_id_reused_for_other_content_is_refused(
    payments_stub, payments_engine, as_person, person
):
    request = create_request()
    first = (await create(payments_stub, as_person, request)).payment
    for change in (
        {"amount_minor": request.amount_minor + 1},
        {"task_id": "another-task"},
        {"description": "a mug"},
        {"card_item_id": str(uuid.uuid4())},
        {"order_reference": "A-1001"},
        {"hosted_payment_origins": ["https://pay.provider.example"]},
    ):
        other = pb.CreatePaymentRequest()
        other.CopyFrom(request)
        for name, value in change.items():
            if isinstance(value, list):
                getattr(other, name)[:] = value
            else:
                setattr(other, name, value)
        error = await expect_error(
            create(payments_stub, as_person, other),
            grpc.StatusCode.ALREADY_EXISTS,
            reason="REQUEST_ID_REUSED",
        )
        assert error.metadata["payment_id"] == first.id
    assert await count_payments(payments_engine, person) == 1


async def test_concurrent_resends_make_one_payment(
    payments_stub, payments_engine, as_person, person
):
    request = create_request()
    replies = await asyncio.gather(*(create(payments_stub, as_person, request) for _ in range(16)))
    assert len({reply.payment.id for reply in replies}) == 1
    assert await count_payments(payments_engine, person) == 1


async def test_request_ids_are_the_persons_own(payments_stub, as_person, service_token):
    request = create_request()
    mine = (await create(payments_stub, as_person, request)).payment
    someone_else = call_metadata(service_token, f"person-{uuid.uuid4().hex[:12]}")
    theirs = (await create(payments_stub, someone_else, request)).payment
    assert theirs.id != mine.id
