"""WatchPayment, ListPayments and the payment's history, as a caller sees them."""

import asyncio
import uuid

from nod.payments.v1 import payments_pb2 as pb

from .support import confirmed_payment, create_payment, submitted_payment


async def eventually(condition, timeout_s: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "condition not met in time"
        await asyncio.sleep(0.02)


async def test_a_watch_follows_the_payment_until_it_is_final(payments_stub, card_claims, as_person):
    payment = await create_payment(
        payments_stub, as_person, card_item_id=await card_claims.card(as_person)
    )
    seen: list[int] = []

    async def watch():
        request = pb.WatchPaymentRequest(payment_id=payment.id)
        async for reply in payments_stub.WatchPayment(request, metadata=as_person):
            seen.append(reply.payment.state)

    watching = asyncio.create_task(watch())
    await eventually(lambda: len(seen) == 1)
    confirm = pb.ConfirmPaymentRequest(payment_id=payment.id, decision=1)
    await payments_stub.ConfirmPayment(confirm, metadata=as_person)
    await eventually(lambda: len(seen) == 2)
    start = pb.StartCardEntryRequest(payment_id=payment.id)
    started = (await payments_stub.StartCardEntry(start, metadata=as_person)).payment
    await eventually(lambda: len(seen) == 3)
    claim = await card_claims.claim(as_person, started)
    submit = pb.RecordSubmittedRequest(payment_id=payment.id, claim_id=claim.id)
    await payments_stub.RecordSubmitted(submit, metadata=as_person)
    await eventually(lambda: len(seen) == 4)
    await asyncio.wait_for(watching, timeout=5)  # the stream ends at a final state
    assert seen == [
        pb.PAYMENT_STATE_AWAITING_CONFIRMATION,
        pb.PAYMENT_STATE_CONFIRMED,
        pb.PAYMENT_STATE_RUNNING,
        pb.PAYMENT_STATE_SUBMITTED,
    ]


async def test_a_watch_hears_a_change_made_on_another_instance_at_once(
    payments_stub_with, card_claims, as_person
):
    # The watched instance never looks on its own within the test.
    watched = await payments_stub_with(watch_poll_s=120)
    changing = await payments_stub_with()
    payment = await create_payment(
        changing, as_person, card_item_id=await card_claims.card(as_person)
    )
    seen: list[int] = []

    async def watch():
        request = pb.WatchPaymentRequest(payment_id=payment.id)
        async for reply in watched.WatchPayment(request, metadata=as_person, timeout=60):
            seen.append(reply.payment.state)

    watching = asyncio.create_task(watch())
    await eventually(lambda: len(seen) == 1)
    decline = pb.ConfirmPaymentRequest(payment_id=payment.id, decision=pb.DECISION_NO)
    await changing.ConfirmPayment(decline, metadata=as_person)

    await asyncio.wait_for(watching, timeout=10)
    assert seen[0] == pb.PAYMENT_STATE_AWAITING_CONFIRMATION
    assert seen[-1] == pb.PAYMENT_STATE_REFUSED


async def test_a_watch_of_a_final_payment_answers_once(payments_stub, card_claims, as_person):
    payment = await submitted_payment(payments_stub, as_person, card_claims)
    request = pb.WatchPaymentRequest(payment_id=payment.id)
    replies = [r async for r in payments_stub.WatchPayment(request, metadata=as_person)]
    assert [r.payment for r in replies] == [payment]


async def test_list_pages_through_a_tasks_payments(payments_stub, as_person):
    task_id = f"task-{uuid.uuid4().hex[:8]}"
    made = [
        await create_payment(payments_stub, as_person, task_id=task_id, amount_minor=amount)
        for amount in range(100, 105)
    ]
    await create_payment(payments_stub, as_person)  # another task
    pages, token = [], ""
    while True:
        reply = await payments_stub.ListPayments(
            pb.ListPaymentsRequest(task_id=task_id, page_size=2, page_token=token),
            metadata=as_person,
        )
        pages.append([p.id for p in reply.payments])
        token = reply.next_page_token
        if not token:
            break
    assert [len(page) for page in pages] == [2, 2, 1]
    assert [pid for page in pages for pid in page] == [p.id for p in made]


async def test_list_filters_by_state(payments_stub, as_person):
    task_id = f"task-{uuid.uuid4().hex[:8]}"
    await create_payment(payments_stub, as_person, task_id=task_id, amount_minor=1)
    confirmed = await confirmed_payment(payments_stub, as_person, task_id=task_id, amount_minor=2)
    reply = await payments_stub.ListPayments(
        pb.ListPaymentsRequest(task_id=task_id, state=pb.PAYMENT_STATE_CONFIRMED),
        metadata=as_person,
    )
    assert [p.id for p in reply.payments] == [confirmed.id]


async def test_the_history_says_who_moved_it_when(payments_stub, as_person, person):
    payment = await confirmed_payment(payments_stub, as_person)
    reply = await payments_stub.ListPaymentEvents(
        pb.ListPaymentEventsRequest(payment_id=payment.id), metadata=as_person
    )
    assert [(e.from_state, e.to_state) for e in reply.events] == [
        (pb.PAYMENT_STATE_UNSPECIFIED, pb.PAYMENT_STATE_AWAITING_CONFIRMATION),
        (pb.PAYMENT_STATE_AWAITING_CONFIRMATION, pb.PAYMENT_STATE_CONFIRMED),
    ]
    assert {e.actor for e in reply.events} == {person}
    assert all(e.at.seconds > 0 for e in reply.events)
