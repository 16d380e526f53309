"""Stop (CancelForTask) and expiry: a late yes starts nothing (G11)."""

import asyncio
import uuid

import grpc
import sqlalchemy as sa

from nod.payments.v1 import payments_pb2 as pb
from nodtest.rpc import expect_error

from .support import (
    confirmed_payment,
    create_payment,
    get_payment,
    running_payment,
    submitted_payment,
    transitions,
    wait_for_state,
)


def decide(stub, meta, payment_id, decision=pb.DECISION_YES):
    request = pb.ConfirmPaymentRequest(payment_id=payment_id, decision=decision)
    return stub.ConfirmPayment(request, metadata=meta)


async def wait_until_overdue(engine, payment_id: str, timeout_s: float = 10.0) -> None:
    """Until the database's clock is past the payment's expiry."""
    query = sa.text("SELECT expires_at <= now() FROM payments.payments WHERE id = :id")
    deadline = asyncio.get_running_loop().time() + timeout_s
    while asyncio.get_running_loop().time() < deadline:
        async with engine.connect() as conn:
            if (await conn.execute(query, {"id": payment_id})).scalar_one():
                return
        await asyncio.sleep(0.05)
    raise AssertionError(f"payment {payment_id} did not pass its expiry in {timeout_s}s")


async def test_stop_cancels_what_has_not_started(payments_stub, card_claims, as_person):
    task_id = f"task-{uuid.uuid4().hex[:8]}"
    awaiting = await create_payment(payments_stub, as_person, task_id=task_id, amount_minor=1)
    confirmed = await confirmed_payment(payments_stub, as_person, task_id=task_id, amount_minor=2)
    running = await running_payment(payments_stub, as_person, task_id=task_id, amount_minor=3)
    submitted = await submitted_payment(
        payments_stub, as_person, card_claims, task_id=task_id, amount_minor=4
    )
    other_task = await create_payment(payments_stub, as_person)

    reply = await payments_stub.CancelForTask(
        pb.CancelForTaskRequest(task_id=task_id), metadata=as_person
    )
    assert {p.id for p in reply.cancelled} == {awaiting.id, confirmed.id}
    assert {p.state for p in reply.cancelled} == {pb.PAYMENT_STATE_CANCELLED}
    assert [p.id for p in reply.left_running] == [running.id]
    for payment in (running, submitted, other_task):
        assert await get_payment(payments_stub, as_person, payment.id) == payment

    again = await payments_stub.CancelForTask(
        pb.CancelForTaskRequest(task_id=task_id), metadata=as_person
    )
    assert list(again.cancelled) == []


async def test_a_yes_after_stop_starts_nothing(payments_stub, payments_engine, as_person):
    payment = await create_payment(payments_stub, as_person)
    await payments_stub.CancelForTask(
        pb.CancelForTaskRequest(task_id=payment.task_id), metadata=as_person
    )
    cancelled = await get_payment(payments_stub, as_person, payment.id)
    history = await transitions(payments_engine, payment.id)

    await expect_error(
        decide(payments_stub, as_person, payment.id),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="CANCELLED",
    )
    await expect_error(
        payments_stub.StartCardEntry(
            pb.StartCardEntryRequest(payment_id=payment.id), metadata=as_person
        ),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="CANCELLED",
    )
    assert await get_payment(payments_stub, as_person, payment.id) == cancelled
    assert await transitions(payments_engine, payment.id) == history


async def test_an_entry_left_running_by_stop_still_records_its_end(
    payments_stub, card_claims, as_person
):
    payment = await running_payment(
        payments_stub, as_person, card_item_id=await card_claims.card(as_person)
    )
    await payments_stub.CancelForTask(
        pb.CancelForTaskRequest(task_id=payment.task_id), metadata=as_person
    )
    claim = await card_claims.claim(as_person, payment)
    reply = await payments_stub.RecordSubmitted(
        pb.RecordSubmittedRequest(payment_id=payment.id, claim_id=claim.id), metadata=as_person
    )
    assert reply.payment.state == pb.PAYMENT_STATE_SUBMITTED


async def test_the_sweeper_expires_an_unanswered_payment(
    payments_stub_with, payments_engine, as_person
):
    stub = await payments_stub_with(confirmation_ttl_s=0.5, sweep_interval_s=0.1)
    payment = await create_payment(stub, as_person)
    expired = await wait_for_state(stub, as_person, payment.id, pb.PAYMENT_STATE_EXPIRED)
    history = await transitions(payments_engine, payment.id)
    assert history[-1][:2] == ("awaiting_confirmation", "expired")
    assert history[-1][2].startswith("sweeper:")

    for decision, reason in ((pb.DECISION_YES, "EXPIRED"), (pb.DECISION_NO, "EXPIRED")):
        await expect_error(
            decide(stub, as_person, payment.id, decision),
            grpc.StatusCode.FAILED_PRECONDITION,
            reason=reason,
        )
    assert await get_payment(stub, as_person, payment.id) == expired
    assert await transitions(payments_engine, payment.id) == history


async def test_a_yes_after_expiry_finds_it_expired_before_any_sweep(
    payments_stub_with, payments_engine, as_person
):
    stub = await payments_stub_with(confirmation_ttl_s=0.3, sweep_interval_s=3600)
    payment = await create_payment(stub, as_person)
    await wait_until_overdue(payments_engine, payment.id)

    await expect_error(
        decide(stub, as_person, payment.id),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="EXPIRED",
    )
    assert (await get_payment(stub, as_person, payment.id)).state == pb.PAYMENT_STATE_EXPIRED
    history = [to for _, to, _ in await transitions(payments_engine, payment.id)]
    assert history == ["awaiting_confirmation", "expired"]
