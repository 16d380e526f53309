"""Races: the database lets exactly one of many concurrent changes through."""

import asyncio

import grpc

from nod.payments.v1 import payments_pb2 as pb
from nodkit.client import NodRpcError

from .support import confirmed_payment, create_payment, get_payment, transitions


async def outcomes(calls):
    """Runs the calls at once; returns (replies, errors)."""
    results = await asyncio.gather(*calls, return_exceptions=True)
    errors = [NodRpcError(r) for r in results if isinstance(r, grpc.aio.AioRpcError)]
    replies = [r for r in results if not isinstance(r, BaseException)]
    assert len(replies) + len(errors) == len(results), results
    return replies, errors


def to_states(history):
    return [to for _, to, _ in history]


async def test_32_concurrent_yeses_confirm_once(payments_stub, payments_engine, as_person):
    for _ in range(50):
        payment = await create_payment(payments_stub, as_person)
        request = pb.ConfirmPaymentRequest(payment_id=payment.id, decision=pb.DECISION_YES)
        replies, errors = await outcomes(
            payments_stub.ConfirmPayment(request, metadata=as_person) for _ in range(32)
        )
        assert errors == []
        assert {r.payment.state for r in replies} == {pb.PAYMENT_STATE_CONFIRMED}
        assert len({r.payment.confirmed_at.ToNanoseconds() for r in replies}) == 1
        history = to_states(await transitions(payments_engine, payment.id))
        assert history.count("confirmed") == 1


async def test_concurrent_yes_and_no_one_decision_wins(payments_stub, payments_engine, as_person):
    for _ in range(10):
        payment = await create_payment(payments_stub, as_person)
        calls = [
            payments_stub.ConfirmPayment(
                pb.ConfirmPaymentRequest(payment_id=payment.id, decision=decision),
                metadata=as_person,
            )
            for decision in [pb.DECISION_YES, pb.DECISION_NO] * 8
        ]
        replies, errors = await outcomes(calls)
        final = await get_payment(payments_stub, as_person, payment.id)
        assert final.state in (pb.PAYMENT_STATE_CONFIRMED, pb.PAYMENT_STATE_REFUSED)
        assert {r.payment.state for r in replies} == {final.state}
        losing_reason = (
            "ALREADY_REFUSED" if final.state == pb.PAYMENT_STATE_REFUSED else "ALREADY_CONFIRMED"
        )
        assert {e.reason for e in errors} == {losing_reason}
        assert len(replies) + len(errors) == 16 and len(errors) == 8
        winner = "refused" if final.state == pb.PAYMENT_STATE_REFUSED else "confirmed"
        history = to_states(await transitions(payments_engine, payment.id))
        assert history == ["awaiting_confirmation", winner]


async def test_16_concurrent_starts_hand_out_one_operation(
    payments_stub, payments_engine, as_person
):
    for _ in range(10):
        payment = await confirmed_payment(payments_stub, as_person)
        request = pb.StartCardEntryRequest(payment_id=payment.id)
        replies, errors = await outcomes(
            payments_stub.StartCardEntry(request, metadata=as_person) for _ in range(16)
        )
        assert len(replies) == 1
        assert replies[0].card_operation_id == f"payment:{payment.id}:card"
        assert {(e.code, e.reason) for e in errors} == {
            (grpc.StatusCode.FAILED_PRECONDITION, "ALREADY_STARTED")
        }
        assert all(e.metadata["state"] == "running" for e in errors)
        history = to_states(await transitions(payments_engine, payment.id))
        assert history.count("running") == 1


async def test_a_yes_racing_stop_never_leaves_the_payment_payable(payments_stub, as_person):
    """CancelForTask cancels awaiting, then confirmed payments: a yes that
    lands in between is caught by the second step."""
    for _ in range(20):
        payment = await create_payment(payments_stub, as_person)
        yes = payments_stub.ConfirmPayment(
            pb.ConfirmPaymentRequest(payment_id=payment.id, decision=pb.DECISION_YES),
            metadata=as_person,
        )
        stop = payments_stub.CancelForTask(
            pb.CancelForTaskRequest(task_id=payment.task_id), metadata=as_person
        )
        await outcomes([yes, stop])
        final = await get_payment(payments_stub, as_person, payment.id)
        assert final.state == pb.PAYMENT_STATE_CANCELLED
