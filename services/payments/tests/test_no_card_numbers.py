"""Card numbers are masked everywhere (G8): the payments schema never holds one.
What counts as one is nodkit.cards' (any grouping and separator, next to
letters or other numbers): a request holding one in its text or ids is
refused naming the field; a reason told by the runner is stored masked."""

import re

import grpc
import pytest
import sqlalchemy as sa

from nod.payments.v1 import payments_pb2 as pb
from nodkit.cards import card_numbers_in
from nodtest.card_shapes import SEEN_STORED
from nodtest.rpc import expect_error

from .support import count_payments, create_request, running_payment, submitted_payment

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


# A payment request's texts and ids: the field named, and the text put there.
PLACES = {
    "description": lambda text: f"teapot, paid with {text}",
    "order_reference": lambda text: text,
    "request_id": lambda text: text,
    "task_id": lambda text: text,
    "card_label": lambda text: f"Visa {text}",
}


@pytest.mark.parametrize("shape", SEEN_STORED)
@pytest.mark.parametrize("field", sorted(PLACES))
async def test_a_card_number_in_any_shape_and_field_of_a_request_is_refused(
    payments_stub, payments_engine, as_person, person, shape, field
):
    request = create_request(**{field: PLACES[field](shape)})

    await expect_error(
        payments_stub.CreatePayment(request, metadata=as_person),
        grpc.StatusCode.INVALID_ARGUMENT,
        field=field,
    )

    assert await count_payments(payments_engine, person) == 0


async def test_a_reason_holding_card_numbers_in_any_shape_is_stored_masked(
    payments_stub, payments_engine, card_claims, as_person
):
    cut_off = await running_payment(
        payments_stub, as_person, card_item_id=await card_claims.card(as_person)
    )
    interrupted = await card_claims.claim(as_person, cut_off, submit=False)
    reason = "the page said: " + "; ".join(SEEN_STORED)

    reply = await payments_stub.RecordUncertain(
        pb.RecordUncertainRequest(payment_id=cut_off.id, reason=reason, claim_id=interrupted.id),
        metadata=as_person,
    )

    assert reply.payment.reason.startswith("the page said: rq-[redacted-number]; card[redacted")
    assert not card_numbers_in(reply.payment.reason), reply.payment.reason
    rows = "\n".join(await every_row_as_text(payments_engine))
    assert "the page said" in rows and not card_numbers_in(rows)
    assert not any(shape in rows for shape in SEEN_STORED)


async def test_a_hex_request_id_with_a_long_run_of_digits_is_not_a_card_number(
    payments_stub, as_person
):
    # As `uuid4().hex` makes about one time in 25: 13 digits in a row.
    request_id = "stopped-" + "a1" + NOT_LUHN[:13] + "0f9e8d7c6b5a4f3e2d"
    request = create_request(request_id=request_id)

    reply = await payments_stub.CreatePayment(request, metadata=as_person)

    assert reply.payment.id and reply.payment.request_id == request_id
