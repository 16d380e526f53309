"""Every call in every state: the legal transitions happen, a repeat of the
transition just made answers the current payment, anything else is
FAILED_PRECONDITION and changes nothing. Final states never change."""

import uuid

import grpc
import pytest

from nod.payments.v1 import payments_pb2 as pb
from nodtest.rpc import expect_error

from .support import (
    confirmed_payment,
    create_payment,
    get_payment,
    running_payment,
    submitted_payment,
    transitions,
    uncertain_payment,
)


async def refused_payment(stub, meta, **fields):
    payment = await create_payment(stub, meta, **fields)
    request = pb.ConfirmPaymentRequest(payment_id=payment.id, decision=pb.DECISION_NO)
    return (await stub.ConfirmPayment(request, metadata=meta)).payment


async def cancelled_payment(stub, meta, **fields):
    payment = await confirmed_payment(stub, meta, **fields)
    request = pb.CancelForTaskRequest(task_id=payment.task_id)
    return (await stub.CancelForTask(request, metadata=meta)).cancelled[0]


def with_a_saved_card(make):
    async def build(stub, meta, claims):
        return await make(stub, meta, card_item_id=await claims.card(meta))

    return build


BUILDERS = {
    "awaiting": with_a_saved_card(create_payment),
    "confirmed": with_a_saved_card(confirmed_payment),
    "running": with_a_saved_card(running_payment),
    "submitted": submitted_payment,
    "uncertain": with_a_saved_card(uncertain_payment),
    "refused": with_a_saved_card(refused_payment),
    "cancelled": with_a_saved_card(cancelled_payment),
}


async def claim_for(claims, meta, payment) -> str:
    """The claim a "submitted" call names: the one recorded, a real
    submitted card claim for a running payment, else any id (nothing asks)."""
    if payment.claim_id:
        return payment.claim_id
    if payment.state == pb.PAYMENT_STATE_RUNNING:
        return (await claims.claim(meta, payment)).id
    return str(uuid.uuid4())


def call(stub, meta, payment, action, claim_id):
    pid = payment.id
    requests = {
        "yes": (stub.ConfirmPayment, pb.ConfirmPaymentRequest(payment_id=pid, decision=1)),
        "no": (stub.ConfirmPayment, pb.ConfirmPaymentRequest(payment_id=pid, decision=2)),
        "start": (stub.StartCardEntry, pb.StartCardEntryRequest(payment_id=pid)),
        "submitted": (
            stub.RecordSubmitted,
            pb.RecordSubmittedRequest(payment_id=pid, claim_id=claim_id),
        ),
        "submitted_other_claim": (
            stub.RecordSubmitted,
            pb.RecordSubmittedRequest(payment_id=pid, claim_id=str(uuid.uuid4())),
        ),
        "uncertain": (
            stub.RecordUncertain,
            pb.RecordUncertainRequest(payment_id=pid, reason="the page stopped answering"),
        ),
        "paid": (
            stub.RecordOutcome,
            pb.RecordOutcomeRequest(payment_id=pid, outcome=pb.PAYMENT_OUTCOME_PAID),
        ),
    }
    method, request = requests[action]
    return method(request, metadata=meta)


S = pb.PaymentState
# (state, action) -> new state name, "same" (answers the current payment) or a refusal reason.
LEGAL = {
    ("awaiting", "yes"): "CONFIRMED",
    ("awaiting", "no"): "REFUSED",
    ("confirmed", "start"): "RUNNING",
    ("running", "submitted"): "SUBMITTED",
    ("running", "uncertain"): "UNCERTAIN",
}
REPEATS = {
    ("confirmed", "yes"),
    ("running", "yes"),
    ("submitted", "yes"),
    ("uncertain", "yes"),
    ("refused", "no"),
    ("submitted", "submitted"),
    ("uncertain", "uncertain"),
}
REFUSALS = {
    "awaiting": {
        "start": "NOT_CONFIRMED",
        "submitted": "NOT_CONFIRMED",
        "uncertain": "NOT_CONFIRMED",
        "paid": "NOT_SUBMITTED",
    },
    "confirmed": {
        "no": "ALREADY_CONFIRMED",
        "submitted": "NOT_STARTED",
        "uncertain": "NOT_STARTED",
        "paid": "NOT_SUBMITTED",
    },
    "running": {"no": "ALREADY_CONFIRMED", "start": "ALREADY_STARTED", "paid": "NOT_SUBMITTED"},
    "submitted": {
        "no": "ALREADY_CONFIRMED",
        "start": "ALREADY_STARTED",
        "uncertain": "ALREADY_SUBMITTED",
        "submitted_other_claim": "CLAIM_MISMATCH",
    },
    "uncertain": {
        "no": "ALREADY_CONFIRMED",
        "start": "ALREADY_STARTED",
        "submitted": "ALREADY_UNCERTAIN",
        "paid": "NOT_SUBMITTED",
    },
    "refused": {
        "yes": "ALREADY_REFUSED",
        "start": "ALREADY_REFUSED",
        "submitted": "ALREADY_REFUSED",
        "uncertain": "ALREADY_REFUSED",
        "paid": "NOT_SUBMITTED",
    },
    "cancelled": {
        "yes": "CANCELLED",
        "no": "CANCELLED",
        "start": "CANCELLED",
        "submitted": "CANCELLED",
        "uncertain": "CANCELLED",
        "paid": "NOT_SUBMITTED",
    },
}
CASES = (
    [(state, action, ("moves", to)) for (state, action), to in LEGAL.items()]
    + [(state, action, ("same", None)) for state, action in sorted(REPEATS)]
    + [
        (state, action, ("refused", reason))
        for state, actions in REFUSALS.items()
        for action, reason in actions.items()
    ]
)


@pytest.mark.parametrize(("state", "action", "expected"), CASES)
async def test_every_call_in_every_state(
    payments_stub, payments_engine, card_claims, as_person, state, action, expected
):
    before = await BUILDERS[state](payments_stub, as_person, card_claims)
    claim_id = await claim_for(card_claims, as_person, before)
    history = await transitions(payments_engine, before.id)
    kind, detail = expected
    if kind == "refused":
        error = await expect_error(
            call(payments_stub, as_person, before, action, claim_id),
            grpc.StatusCode.FAILED_PRECONDITION,
            reason=detail,
        )
        assert error.metadata["payment_id"] == before.id
        assert await get_payment(payments_stub, as_person, before.id) == before
        assert await transitions(payments_engine, before.id) == history
        return
    reply = await call(payments_stub, as_person, before, action, claim_id)
    if kind == "same":
        assert reply.payment == before
        assert await transitions(payments_engine, before.id) == history
    else:
        assert reply.payment.state == S.Value(f"PAYMENT_STATE_{detail}")
        assert len(await transitions(payments_engine, before.id)) == len(history) + 1


def test_every_state_and_call_is_covered():
    actions = {"yes", "no", "start", "submitted", "uncertain", "paid"}
    covered = {(state, action) for state, action, _ in CASES}
    missing = {(s, a) for s in BUILDERS for a in actions if (s, a) not in covered}
    # SUBMITTED + outcome is the outcome's own step: test_the_outcome_is_recorded_once.
    assert missing == {("submitted", "paid")}


async def test_the_outcome_is_recorded_once(payments_stub, payments_engine, card_claims, as_person):
    payment = await submitted_payment(payments_stub, as_person, card_claims)

    def outcome(value):
        request = pb.RecordOutcomeRequest(payment_id=payment.id, outcome=value)
        return payments_stub.RecordOutcome(request, metadata=as_person)

    declined = (await outcome(pb.PAYMENT_OUTCOME_DECLINED)).payment
    assert declined.outcome == pb.PAYMENT_OUTCOME_DECLINED
    assert declined.state == pb.PAYMENT_STATE_SUBMITTED
    history = await transitions(payments_engine, payment.id)
    assert (await outcome(pb.PAYMENT_OUTCOME_DECLINED)).payment == declined
    await expect_error(
        outcome(pb.PAYMENT_OUTCOME_PAID),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="OUTCOME_ALREADY_RECORDED",
    )
    assert await get_payment(payments_stub, as_person, payment.id) == declined
    assert await transitions(payments_engine, payment.id) == history


async def test_uncertain_keeps_its_reason_and_claim(payments_stub, card_claims, as_person):
    payment = await running_payment(
        payments_stub, as_person, card_item_id=await card_claims.card(as_person)
    )
    # Cut off mid-entry: the claim is still RUNNING.
    claim_id = (await card_claims.claim(as_person, payment, submit=False)).id
    reply = await payments_stub.RecordUncertain(
        pb.RecordUncertainRequest(payment_id=payment.id, reason="tab crashed", claim_id=claim_id),
        metadata=as_person,
    )
    assert reply.payment.state == pb.PAYMENT_STATE_UNCERTAIN
    assert reply.payment.reason == "tab crashed"
    assert reply.payment.claim_id == claim_id
    assert reply.payment.card_operation_id == f"payment:{payment.id}:card"
