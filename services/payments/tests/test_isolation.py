"""Every payment belongs to one person: to anyone else it does not exist."""

import uuid

import grpc

from nod.payments.v1 import payments_pb2 as pb
from nodkit.client import call_metadata
from nodtest.rpc import expect_error

from .support import get_payment, running_payment, transitions


def every_call_on(stub, meta, payment_id):
    yield stub.GetPayment(pb.GetPaymentRequest(payment_id=payment_id), metadata=meta)
    for decision in (pb.DECISION_YES, pb.DECISION_NO):
        request = pb.ConfirmPaymentRequest(payment_id=payment_id, decision=decision)
        yield stub.ConfirmPayment(request, metadata=meta)
    yield stub.StartCardEntry(pb.StartCardEntryRequest(payment_id=payment_id), metadata=meta)
    yield stub.RecordSubmitted(
        pb.RecordSubmittedRequest(payment_id=payment_id, claim_id=str(uuid.uuid4())),
        metadata=meta,
    )
    yield stub.RecordUncertain(
        pb.RecordUncertainRequest(payment_id=payment_id, reason="x"), metadata=meta
    )
    yield stub.RecordOutcome(
        pb.RecordOutcomeRequest(payment_id=payment_id, outcome=pb.PAYMENT_OUTCOME_PAID),
        metadata=meta,
    )
    yield stub.ListPaymentEvents(pb.ListPaymentEventsRequest(payment_id=payment_id), metadata=meta)


async def first_of_watch(stub, meta, payment_id):
    async for reply in stub.WatchPayment(
        pb.WatchPaymentRequest(payment_id=payment_id), metadata=meta
    ):
        return reply


async def test_another_persons_payment_is_not_found(
    payments_stub, payments_engine, as_person, service_token
):
    payment = await running_payment(payments_stub, as_person)
    history = await transitions(payments_engine, payment.id)
    stranger = call_metadata(service_token, f"person-{uuid.uuid4().hex[:12]}")

    for call in every_call_on(payments_stub, stranger, payment.id):
        await expect_error(call, grpc.StatusCode.NOT_FOUND, reason="PAYMENT_NOT_FOUND")
    await expect_error(
        first_of_watch(payments_stub, stranger, payment.id),
        grpc.StatusCode.NOT_FOUND,
        reason="PAYMENT_NOT_FOUND",
    )
    listed = await payments_stub.ListPayments(
        pb.ListPaymentsRequest(task_id=payment.task_id), metadata=stranger
    )
    assert list(listed.payments) == []
    cancelled = await payments_stub.CancelForTask(
        pb.CancelForTaskRequest(task_id=payment.task_id), metadata=stranger
    )
    assert list(cancelled.cancelled) == list(cancelled.left_running) == []

    assert await get_payment(payments_stub, as_person, payment.id) == payment
    assert await transitions(payments_engine, payment.id) == history


async def test_an_unknown_payment_is_not_found(payments_stub, as_person):
    for call in every_call_on(payments_stub, as_person, str(uuid.uuid4())):
        await expect_error(call, grpc.StatusCode.NOT_FOUND, reason="PAYMENT_NOT_FOUND")


async def test_a_call_must_name_the_person(payments_stub, service_token):
    await expect_error(
        payments_stub.ListPayments(pb.ListPaymentsRequest(), metadata=call_metadata(service_token)),
        grpc.StatusCode.UNAUTHENTICATED,
        reason="MISSING_USER",
    )


async def test_a_call_without_the_service_token_is_refused(payments_stub, person):
    await expect_error(
        payments_stub.ListPayments(pb.ListPaymentsRequest(), metadata=(("x-nod-user", person),)),
        grpc.StatusCode.UNAUTHENTICATED,
        reason="BAD_SERVICE_TOKEN",
    )
