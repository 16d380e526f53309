"""A payment end to end, the way the tasks service drives it: the person's yes
(payments), the card entered under a claim (browser + claims), the outcome
read from the merchant's page (G8). Real Chromium, real PostgreSQL, the demo
shop counting what it receives."""

import asyncio

import grpc

from nod.browser.v1 import browser_pb2 as browser
from nod.claims.v1 import claims_pb2 as claims
from nod.payments.v1 import payments_pb2 as payments
from nodkit.client import NodRpcError
from nodtest.browser import browser_open, browser_read, control_ref, enter_request, field_ref
from nodtest.claims import CANARY_CARD, put_card
from nodtest.demo import shop_count
from nodtest.rpc import expect_error

DECLINED_CARD = "4000000000000002"
SECURITY_CODE = "737"


async def prepare(vault_stub, payments_stub, meta, shop, task_id, *, card_number=CANARY_CARD):
    """The saved card, the security code typed for this payment, and the
    payment waiting for the person's yes."""
    card = await put_card(vault_stub, meta, number=card_number)
    code = await vault_stub.PutPrivateEntry(
        claims.PutPrivateEntryRequest(
            task_id=task_id,
            kind=claims.ENTRY_KIND_SECURITY_CODE,
            fields={"security_code": SECURITY_CODE},
        ),
        metadata=meta,
    )
    payment = await payments_stub.CreatePayment(
        payments.CreatePaymentRequest(
            request_id=f"{task_id}:step-1",
            task_id=task_id,
            merchant_origin=shop.url,
            amount_minor=2500,
            currency="EUR",
            description="Desk lamp",
            card_item_id=card.id,
            card_label=card.fields["number"],
        ),
        metadata=meta,
    )
    return card, code.id, payment.payment


async def confirm_and_pay(stubs, meta, shop, payment, card, code_id):
    """What one browser tab's yes leads to. Returns the browser's reply, or
    None when payments refused to start a second card entry."""
    payments_stub, browser_stub = stubs
    await payments_stub.ConfirmPayment(
        payments.ConfirmPaymentRequest(payment_id=payment.id, decision=payments.DECISION_YES),
        metadata=meta,
    )
    try:
        started = await payments_stub.StartCardEntry(
            payments.StartCardEntryRequest(payment_id=payment.id), metadata=meta
        )
    except grpc.aio.AioRpcError as error:
        assert NodRpcError(error).reason == "ALREADY_STARTED"
        return None
    session_id, page = await browser_open(
        browser_stub, meta, f"{shop.url}/checkout", task_id=payment.task_id
    )
    request = enter_request(
        session_id,
        card.id,
        claims.ENTRY_KIND_CARD,
        {
            "number": field_ref(page, "card_number"),
            "expiry": field_ref(page, "expiry"),
            "security_code": field_ref(page, "cvc"),
            "holder_name": field_ref(page, "holder"),
        },
        control_ref(page, "Pay"),
        operation_id=started.card_operation_id,
        companion_entry_id=code_id,
    )
    entered = await browser_stub.EnterPrivate(request, metadata=meta)
    return session_id, entered


async def record(payments_stub, browser_stub, claims_stub, meta, payment, session_id, entered):
    """After the submit: record it, read the page, record what it says."""
    assert entered.claim.state == claims.CLAIM_STATE_SUBMITTED
    await payments_stub.RecordSubmitted(
        payments.RecordSubmittedRequest(payment_id=payment.id, claim_id=entered.claim.id),
        metadata=meta,
    )
    page = await browser_read(browser_stub, meta, session_id)
    notices = " ".join(n.text for n in page.notices)
    if "Payment accepted" in notices:
        outcome, check = payments.PAYMENT_OUTCOME_PAID, claims.CHECK_RESULT_WORKED
    elif "declined" in notices.lower():
        outcome, check = payments.PAYMENT_OUTCOME_DECLINED, claims.CHECK_RESULT_DID_NOT_WORK
    else:
        outcome, check = payments.PAYMENT_OUTCOME_UNKNOWN, claims.CHECK_RESULT_UNCLEAR
    await claims_stub.RecordCheck(
        claims.RecordCheckRequest(claim_id=entered.claim.id, check=check), metadata=meta
    )
    reply = await payments_stub.RecordOutcome(
        payments.RecordOutcomeRequest(payment_id=payment.id, outcome=outcome), metadata=meta
    )
    return reply.payment, page


async def test_a_payment_is_paid_once_with_its_outcome_from_the_page(
    claims_stub, vault_stub, payments_stub, browser_stub, shop_site, as_person, db
):
    card, code_id, payment = await prepare(
        vault_stub, payments_stub, as_person, shop_site, "task-pay"
    )
    session_id, entered = await confirm_and_pay(
        (payments_stub, browser_stub), as_person, shop_site, payment, card, code_id
    )
    paid, page = await record(
        payments_stub, browser_stub, claims_stub, as_person, payment, session_id, entered
    )

    assert paid.state == payments.PAYMENT_STATE_SUBMITTED
    assert paid.outcome == payments.PAYMENT_OUTCOME_PAID
    assert paid.claim_id == entered.claim.id
    assert shop_count(shop_site, "checkout") == 1
    assert "/orders/" in page.url
    assert CANARY_CARD not in str(page) and SECURITY_CODE not in page.text
    # The security code was for this one payment: it is gone.
    left = await (
        await db.execute("SELECT count(*) FROM claims.private_entries WHERE id = %s", (code_id,))
    ).fetchone()
    assert left == (0,)


async def test_a_declined_card_is_recorded_declined(
    claims_stub, vault_stub, payments_stub, browser_stub, shop_site, as_person
):
    card, code_id, payment = await prepare(
        vault_stub, payments_stub, as_person, shop_site, "task-declined", card_number=DECLINED_CARD
    )
    session_id, entered = await confirm_and_pay(
        (payments_stub, browser_stub), as_person, shop_site, payment, card, code_id
    )
    declined, _ = await record(
        payments_stub, browser_stub, claims_stub, as_person, payment, session_id, entered
    )
    assert declined.outcome == payments.PAYMENT_OUTCOME_DECLINED
    assert shop_count(shop_site, "checkout") == 1


async def test_two_concurrent_yeses_enter_the_card_once(
    claims_stub, vault_stub, payments_stub, browser_stub, shop_site, as_person
):
    card, code_id, payment = await prepare(
        vault_stub, payments_stub, as_person, shop_site, "task-two-tabs"
    )
    results = await asyncio.gather(
        *(
            confirm_and_pay(
                (payments_stub, browser_stub), as_person, shop_site, payment, card, code_id
            )
            for _ in range(2)
        )
    )
    entries = [r for r in results if r is not None]
    assert len(entries) == 1 and entries[0][1].entered
    assert shop_count(shop_site, "checkout") == 1


async def test_the_same_order_is_not_paid_twice(
    claims_stub, vault_stub, payments_stub, browser_stub, shop_site, as_person
):
    card, code_id, payment = await prepare(
        vault_stub, payments_stub, as_person, shop_site, "task-twice"
    )
    session_id, entered = await confirm_and_pay(
        (payments_stub, browser_stub), as_person, shop_site, payment, card, code_id
    )
    await record(payments_stub, browser_stub, claims_stub, as_person, payment, session_id, entered)

    await expect_error(
        payments_stub.CreatePayment(
            payments.CreatePaymentRequest(
                # A later step of the task asking for the same order again.
                request_id="task-twice:step-2",
                task_id="task-twice",
                merchant_origin=shop_site.url,
                amount_minor=2500,
                currency="EUR",
                description="Desk lamp",
                card_item_id=card.id,
                card_label=card.fields["number"],
            ),
            metadata=as_person,
        ),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="DUPLICATE_ORDER",
    )
    assert shop_count(shop_site, "checkout") == 1
    # Even a caller that skips payments and replays the card operation
    # enters nothing: the claim for it exists.
    page = await browser_read(browser_stub, as_person, session_id)
    replay = await browser_stub.EnterPrivate(
        browser.EnterPrivateRequest(
            session_id=session_id,
            operation_id=entered.claim.operation_id,
            kind=claims.ENTRY_KIND_CARD,
            item_id=card.id,
            companion_entry_id=code_id,
            fields={"number": "#card_number"},
            submit="#checkout button",
        ),
        metadata=as_person,
    )
    assert not replay.entered and replay.claim.id == entered.claim.id
    assert page.url and shop_count(shop_site, "checkout") == 1
