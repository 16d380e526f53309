"""G13: when its card entry starts, a payment binds its card with the claims
service to the merchant the person said yes to (and the hosted payment pages
the yes named); the card can then be claimed under the payment's card
operation id there and nowhere else, and without that start not at all. A
start that can't bind leaves the payment CONFIRMED; a later one binds again
and the claims service answers the first binding."""

import grpc

from nod.claims.v1 import claims_pb2 as claims_pb
from nod.payments.v1 import payments_pb2 as pb
from nodtest.claims import bind_card
from nodtest.processes import free_port
from nodtest.rpc import expect_error

from .support import SHOP, confirmed_payment, get_payment, running_payment, transitions

HOSTED = "https://pay.provider.example"
ELSEWHERE = "http://127.0.0.2:8000"


def card_claim(payment: pb.Payment, holder: str, origin: str, **extra) -> claims_pb.ClaimRequest:
    values = {
        "operation_id": payment.card_operation_id or f"payment:{payment.id}:card",
        "kind": claims_pb.ENTRY_KIND_CARD,
        "item_id": payment.card_item_id,
        "origin": origin,
        "task_id": payment.task_id,
        "holder": holder,
    }
    return claims_pb.ClaimRequest(**(values | extra))


async def holder(card_claims, meta) -> str:
    request = claims_pb.RenewHolderRequest(holder=card_claims.HOLDER)
    await card_claims.claims_stub.RenewHolder(request, metadata=meta)
    return card_claims.HOLDER


async def test_the_card_goes_only_where_the_person_said_yes(payments_stub, card_claims, as_person):
    card = await card_claims.card(as_person)
    payment = await confirmed_payment(
        payments_stub, as_person, card_item_id=card, hosted_payment_origins=[HOSTED]
    )
    assert list(payment.hosted_payment_origins) == [HOSTED]
    runner = await holder(card_claims, as_person)
    claims = card_claims.claims_stub
    # Before the entry starts, the card can't be claimed under its operation id.
    await expect_error(
        claims.Claim(card_claim(payment, runner, SHOP), metadata=as_person),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="CARD_NOT_BOUND",
    )
    started = await payments_stub.StartCardEntry(
        pb.StartCardEntryRequest(payment_id=payment.id), metadata=as_person
    )
    payment = started.payment
    # Another checkout than the one said yes to.
    error = await expect_error(
        claims.Claim(card_claim(payment, runner, ELSEWHERE), metadata=as_person),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="PAGE_NOT_BOUND",
    )
    assert error.message.startswith(f"this page belongs to {ELSEWHERE}, not the shop you said yes")
    # Another card under this payment's operation id.
    await expect_error(
        claims.Claim(
            card_claim(payment, runner, SHOP, item_id=await card_claims.card(as_person)),
            metadata=as_person,
        ),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="CARD_NOT_BOUND",
    )
    granted = await claims.Claim(card_claim(payment, runner, HOSTED), metadata=as_person)
    assert granted.granted and list(granted.bound_origins) == [SHOP, HOSTED]


async def test_a_start_that_cannot_bind_leaves_the_payment_confirmed(
    payments_stub, payments_stub_with, payments_engine, card_claims, as_person
):
    nobody = f"127.0.0.1:{free_port()}"
    cut_off = await payments_stub_with(claims_addr=nobody, claims_timeout_s=1.0)
    card = await card_claims.card(as_person)
    payment = await confirmed_payment(cut_off, as_person, card_item_id=card)
    history = await transitions(payments_engine, payment.id)
    start = pb.StartCardEntryRequest(payment_id=payment.id)
    await expect_error(
        cut_off.StartCardEntry(start, metadata=as_person),
        grpc.StatusCode.UNAVAILABLE,
        reason="CLAIMS_UNAVAILABLE",
    )
    assert await get_payment(payments_stub, as_person, payment.id) == payment
    assert await transitions(payments_engine, payment.id) == history
    # No operation id went out, and nothing was bound: the card can't be claimed.
    runner = await holder(card_claims, as_person)
    await expect_error(
        card_claims.claims_stub.Claim(card_claim(payment, runner, SHOP), metadata=as_person),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="CARD_NOT_BOUND",
    )
    # A later start, once claims answers, binds and starts.
    started = await payments_stub.StartCardEntry(start, metadata=as_person)
    assert started.payment.state == pb.PAYMENT_STATE_RUNNING


async def test_a_start_after_a_binding_whose_answer_was_lost_finds_it(
    payments_stub, card_claims, as_person
):
    """The claims service bound the entry but payments never heard: the next
    start binds the same again and is answered with the first binding."""
    card = await card_claims.card(as_person)
    payment = await confirmed_payment(payments_stub, as_person, card_item_id=card)
    operation_id = f"payment:{payment.id}:card"
    first = await bind_card(
        card_claims.claims_stub,
        as_person,
        operation_id=operation_id,
        item_id=card,
        task_id=payment.task_id,
        merchant_origin=SHOP,
    )
    started = await payments_stub.StartCardEntry(
        pb.StartCardEntryRequest(payment_id=payment.id), metadata=as_person
    )
    assert started.card_operation_id == operation_id
    again = await bind_card(
        card_claims.claims_stub,
        as_person,
        operation_id=operation_id,
        item_id=card,
        task_id=payment.task_id,
        merchant_origin=SHOP,
    )
    assert again == first


async def test_a_binding_made_for_other_content_stops_the_start(
    payments_stub, payments_engine, card_claims, as_person
):
    """Whatever bound the operation id first is never widened or moved."""
    card = await card_claims.card(as_person)
    payment = await confirmed_payment(payments_stub, as_person, card_item_id=card)
    await bind_card(
        card_claims.claims_stub,
        as_person,
        operation_id=f"payment:{payment.id}:card",
        item_id=card,
        task_id=payment.task_id,
        merchant_origin=ELSEWHERE,
    )
    history = await transitions(payments_engine, payment.id)
    await expect_error(
        payments_stub.StartCardEntry(
            pb.StartCardEntryRequest(payment_id=payment.id), metadata=as_person
        ),
        grpc.StatusCode.UNAVAILABLE,
        reason="CLAIMS_UNAVAILABLE",
    )
    assert await transitions(payments_engine, payment.id) == history


async def test_a_second_start_binds_nothing_new(payments_stub, card_claims, as_person):
    card = await card_claims.card(as_person)
    payment = await running_payment(payments_stub, as_person, card_item_id=card)
    await expect_error(
        payments_stub.StartCardEntry(
            pb.StartCardEntryRequest(payment_id=payment.id), metadata=as_person
        ),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="ALREADY_STARTED",
    )
