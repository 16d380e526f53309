"""Bad input is INVALID_ARGUMENT naming the field, and nothing is written."""

import grpc
import pytest

from nod.payments.v1 import payments_pb2 as pb
from nodtest.rpc import expect_error

from .support import (
    count_payments,
    create_payment,
    create_request,
    get_payment,
    running_payment,
    transitions,
)

BAD_PAYMENTS = [
    ({"amount_minor": 0}, "amount_minor"),
    ({"amount_minor": -100}, "amount_minor"),
    ({"currency": ""}, "currency"),
    ({"currency": "eur"}, "currency"),
    ({"currency": "EURO"}, "currency"),
    ({"merchant_origin": ""}, "merchant_origin"),
    ({"merchant_origin": "ftp://shop.example"}, "merchant_origin"),
    ({"merchant_origin": "https://shop.example/checkout"}, "merchant_origin"),
    ({"task_id": ""}, "task_id"),
    ({"task_id": "x" * 129}, "task_id"),
    ({"card_item_id": ""}, "card_item_id"),
    ({"card_item_id": "visa"}, "card_item_id"),
    ({"card_label": ""}, "card_label"),
    ({"card_label": "4111 1111 1111 1111"}, "card_label"),
    ({"card_label": "Visa 42424"}, "card_label"),
    ({"description": "x" * 501}, "description"),
    ({"description": "pay with 4111111111111111 please"}, "description"),
    ({"description": "card 4111 1111 1111 1111"}, "description"),
    ({"description": "ref 1234567890123456"}, "description"),
    ({"description": "nul\x00"}, "description"),
    ({"order_reference": "r" * 201}, "order_reference"),
    ({"order_reference": "4111-1111-1111-1111"}, "order_reference"),
    ({"order_reference": "A1234567890123"}, "order_reference"),
    ({"repeat_of_payment_id": "earlier"}, "repeat_of_payment_id"),
    ({"request_id": ""}, "request_id"),
    ({"request_id": "r" * 129}, "request_id"),
    ({"request_id": "step\t1"}, "request_id"),
    ({"request_id": " step-1"}, "request_id"),
    ({"request_id": "step-4111111111111111"}, "request_id"),
    ({"hosted_payment_origins": ["https://pay.example/checkout"]}, "hosted_payment_origins[0]"),
    (
        {"hosted_payment_origins": ["https://pay.example", "javascript:x"]},
        "hosted_payment_origins[1]",
    ),
    (
        {"hosted_payment_origins": [f"https://p{n}.example" for n in range(11)]},
        "hosted_payment_origins",
    ),
]


@pytest.mark.parametrize(("fields", "field"), BAD_PAYMENTS)
async def test_a_bad_payment_request_names_the_field(
    payments_stub, payments_engine, as_person, person, fields, field
):
    await expect_error(
        payments_stub.CreatePayment(create_request(**fields), metadata=as_person),
        grpc.StatusCode.INVALID_ARGUMENT,
        field=field,
    )
    assert await count_payments(payments_engine, person) == 0


async def test_the_longest_allowed_description_is_accepted(payments_stub, as_person):
    payment = await create_payment(payments_stub, as_person, description="x" * 500)
    assert len(payment.description) == 500


async def test_an_order_number_in_digit_groups_is_accepted(payments_stub, as_person):
    # Refused only when it could be a card number (an unbroken run, or Luhn-valid).
    payment = await create_payment(payments_stub, as_person, order_reference="114-1234567-1234567")
    assert payment.order_reference == "114-1234567-1234567"


async def test_the_origin_is_normalised(payments_stub, as_person):
    payment = await create_payment(
        payments_stub, as_person, merchant_origin="HTTPS://Shop.Example:443/"
    )
    assert payment.merchant_origin == "https://shop.example"


def bad_requests(payment_id: str):
    """(method, request, field): requests about an existing payment with one bad field."""
    return [
        ("ConfirmPayment", pb.ConfirmPaymentRequest(payment_id=payment_id), "decision"),
        (
            "ConfirmPayment",
            pb.ConfirmPaymentRequest(payment_id=payment_id, decision=99),
            "decision",
        ),
        ("ConfirmPayment", pb.ConfirmPaymentRequest(payment_id="", decision=1), "payment_id"),
        ("ConfirmPayment", pb.ConfirmPaymentRequest(payment_id="id", decision=1), "payment_id"),
        ("StartCardEntry", pb.StartCardEntryRequest(payment_id=""), "payment_id"),
        ("RecordSubmitted", pb.RecordSubmittedRequest(payment_id=payment_id), "claim_id"),
        (
            "RecordUncertain",
            pb.RecordUncertainRequest(payment_id=payment_id, claim_id="claim"),
            "claim_id",
        ),
        ("RecordOutcome", pb.RecordOutcomeRequest(payment_id=payment_id), "outcome"),
        ("RecordOutcome", pb.RecordOutcomeRequest(payment_id=payment_id, outcome=42), "outcome"),
        ("GetPayment", pb.GetPaymentRequest(payment_id="x"), "payment_id"),
        ("ListPayments", pb.ListPaymentsRequest(state=99), "state"),
        ("ListPayments", pb.ListPaymentsRequest(page_size=-1), "page_size"),
        ("ListPayments", pb.ListPaymentsRequest(page_token="garbage!"), "page_token"),
        ("CancelForTask", pb.CancelForTaskRequest(task_id=""), "task_id"),
    ]


async def test_bad_requests_about_a_payment_change_nothing(
    payments_stub, payments_engine, as_person
):
    payment = await create_payment(payments_stub, as_person)
    history = await transitions(payments_engine, payment.id)
    for method, request, field in bad_requests(payment.id):
        call = getattr(payments_stub, method)(request, metadata=as_person)
        await expect_error(call, grpc.StatusCode.INVALID_ARGUMENT, field=field)
    reply = await payments_stub.GetPayment(
        pb.GetPaymentRequest(payment_id=payment.id), metadata=as_person
    )
    assert reply.payment == payment
    assert await transitions(payments_engine, payment.id) == history


async def test_a_nul_in_an_uncertain_reason_is_refused_and_changes_nothing(
    payments_stub, payments_engine, as_person
):
    """A definite refusal naming the field (never INTERNAL, which a caller
    must read as "may have happened"); the entry's end is then recorded with
    a reason that can be stored."""
    payment = await running_payment(payments_stub, as_person)
    history = await transitions(payments_engine, payment.id)
    await expect_error(
        payments_stub.RecordUncertain(
            pb.RecordUncertainRequest(payment_id=payment.id, reason="tab crashed\x00"),
            metadata=as_person,
        ),
        grpc.StatusCode.INVALID_ARGUMENT,
        field="reason",
    )
    assert await get_payment(payments_stub, as_person, payment.id) == payment
    assert await transitions(payments_engine, payment.id) == history

    reply = await payments_stub.RecordUncertain(
        pb.RecordUncertainRequest(payment_id=payment.id, reason="tab crashed"),
        metadata=as_person,
    )
    assert reply.payment.state == pb.PAYMENT_STATE_UNCERTAIN
    assert reply.payment.reason == "tab crashed"


async def test_an_uncertain_reason_is_masked_before_it_is_cut_to_length(payments_stub, as_person):
    payment = await running_payment(payments_stub, as_person)
    reason = "x" * 490 + " 4111111111111111"
    reply = await payments_stub.RecordUncertain(
        pb.RecordUncertainRequest(payment_id=payment.id, reason=reason), metadata=as_person
    )
    assert reply.payment.state == pb.PAYMENT_STATE_UNCERTAIN
    assert len(reply.payment.reason) == 500
    assert "41111" not in reply.payment.reason
