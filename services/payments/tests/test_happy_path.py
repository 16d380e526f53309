"""The flow the tasks service drives: create, yes, card entry, submitted, outcome."""

from nod.payments.v1 import payments_pb2 as pb

from .support import create_payment, transitions


async def test_a_payment_goes_from_request_to_paid(
    payments_stub, payments_engine, card_claims, as_person
):
    card_item_id = await card_claims.card(as_person)
    payment = await create_payment(
        payments_stub, as_person, order_reference="A-1001", card_item_id=card_item_id
    )
    assert payment.state == pb.PAYMENT_STATE_AWAITING_CONFIRMATION
    assert payment.expires_at.seconds > payment.created_at.seconds

    confirmed = await payments_stub.ConfirmPayment(
        pb.ConfirmPaymentRequest(payment_id=payment.id, decision=pb.DECISION_YES),
        metadata=as_person,
    )
    assert confirmed.payment.state == pb.PAYMENT_STATE_CONFIRMED

    started = await payments_stub.StartCardEntry(
        pb.StartCardEntryRequest(payment_id=payment.id), metadata=as_person
    )
    assert started.card_operation_id == f"payment:{payment.id}:card"
    assert started.payment.state == pb.PAYMENT_STATE_RUNNING

    claim_id = (await card_claims.claim(as_person, started.payment)).id
    submitted = await payments_stub.RecordSubmitted(
        pb.RecordSubmittedRequest(payment_id=payment.id, claim_id=claim_id), metadata=as_person
    )
    assert submitted.payment.state == pb.PAYMENT_STATE_SUBMITTED
    assert submitted.payment.claim_id == claim_id

    paid = await payments_stub.RecordOutcome(
        pb.RecordOutcomeRequest(payment_id=payment.id, outcome=pb.PAYMENT_OUTCOME_PAID),
        metadata=as_person,
    )
    assert paid.payment.state == pb.PAYMENT_STATE_SUBMITTED
    assert paid.payment.outcome == pb.PAYMENT_OUTCOME_PAID

    history = [(f, t) for f, t, _ in await transitions(payments_engine, payment.id)]
    assert history == [
        (None, "awaiting_confirmation"),
        ("awaiting_confirmation", "confirmed"),
        ("confirmed", "running"),
        ("running", "submitted"),
        ("submitted", "submitted"),
    ]
