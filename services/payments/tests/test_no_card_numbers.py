"""Card numbers are masked everywhere (G8): the payments schema never holds one."""

import re

import grpc
import sqlalchemy as sa

from nod.payments.v1 import payments_pb2 as pb
from nodtest.rpc import expect_error

from .support import create_request, running_payment, submitted_payment

CARD = "4111111111111111"
CARD_GROUPED = "4111 1111 1111 1111"
NOT_LUHN = "1234567890123456"
DIGIT_RUN = re.compile(r"\d{13,19}")


async def every_row_as_text(engine) -> list[str]:
    """All columns of all tables in the payments schema, one text per row."""
    tables = sa.text(
        "SELECT table_name FROM information_schema.tables"
        " WHERE table_schema = 'payments' AND table_type = 'BASE TABLE'"
    )
    rows = []
    async with engine.connect() as conn:
        for name in (await conn.execute(tables)).scalars():
            query = sa.text(f'SELECT t::text FROM payments."{name}" t')
            rows += (await conn.execute(query)).scalars().all()
    return rows


async def test_the_database_never_holds_a_card_number(
    payments_stub, payments_engine, card_claims, as_person, log_tee
):
    for fields in (
        {"card_label": CARD},
        {"card_label": f"Visa {CARD_GROUPED}"},
        {"description": f"teapot, card {CARD}"},
        {"order_reference": CARD_GROUPED},
        {"description": f"ref {NOT_LUHN}"},
    ):
        await expect_error(
            payments_stub.CreatePayment(create_request(**fields), metadata=as_person),
            grpc.StatusCode.INVALID_ARGUMENT,
        )
    paid = await submitted_payment(
        payments_stub, as_person, card_claims, card_label="Visa •••• 1111"
    )
    await payments_stub.RecordOutcome(
        pb.RecordOutcomeRequest(payment_id=paid.id, outcome=pb.PAYMENT_OUTCOME_PAID),
        metadata=as_person,
    )
    cut_off = await running_payment(
        payments_stub, as_person, card_item_id=await card_claims.card(as_person)
    )
    interrupted = await card_claims.claim(as_person, cut_off, submit=False)
    # A careless caller's reason is stored masked rather than refused: an
    # UNCERTAIN report must never be lost.
    reply = await payments_stub.RecordUncertain(
        pb.RecordUncertainRequest(
            payment_id=cut_off.id,
            reason=f"form rejected {CARD} / {CARD_GROUPED} / {NOT_LUHN}",
            claim_id=interrupted.id,
        ),
        metadata=as_person,
    )
    assert reply.payment.state == pb.PAYMENT_STATE_UNCERTAIN
    assert not DIGIT_RUN.search(reply.payment.reason) and "1111 1111" not in reply.payment.reason

    rows = await every_row_as_text(payments_engine)
    assert any(paid.id in row for row in rows)
    assert [row for row in rows if DIGIT_RUN.search(row) or CARD_GROUPED in row] == []
    assert CARD not in log_tee.text() and CARD_GROUPED not in log_tee.text()
