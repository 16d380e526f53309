"""The same order is never paid twice without the person's explicit repeat (G5, G8)."""

import asyncio
import uuid

import grpc

from nod.payments.v1 import payments_pb2 as pb
from nodkit.client import NodRpcError
from nodtest.rpc import expect_error

from .support import (
    confirmed_payment,
    count_payments,
    create_payment,
    create_request,
    submitted_payment,
    uncertain_payment,
)


def an_order(**overrides) -> dict:
    return {"task_id": f"task-{uuid.uuid4().hex[:8]}", "order_reference": "A-1001", **overrides}


def create(stub, meta, **fields):
    return stub.CreatePayment(create_request(**fields), metadata=meta)


async def test_a_second_payment_for_the_same_order_is_refused(
    payments_stub, payments_engine, as_person, person
):
    order = an_order()
    first = await create_payment(payments_stub, as_person, **order)
    # The same order reference names the order, whatever the amount says.
    error = await expect_error(
        create(payments_stub, as_person, **order, amount_minor=999),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="DUPLICATE_ORDER",
    )
    assert error.metadata["payment_id"] == first.id
    assert await count_payments(payments_engine, person) == 1


async def test_the_merchant_amount_and_currency_name_the_order(payments_stub, as_person):
    order = {"task_id": f"task-{uuid.uuid4().hex[:8]}", "amount_minor": 1500}
    first = await confirmed_payment(payments_stub, as_person, **order)
    for same_order in ({}, {"description": "a mug"}, {"order_reference": "B-2002"}):
        error = await expect_error(
            create(payments_stub, as_person, **order, **same_order),
            grpc.StatusCode.FAILED_PRECONDITION,
            reason="DUPLICATE_ORDER",
        )
        assert error.metadata["payment_id"] == first.id
    other_amount = await create_payment(payments_stub, as_person, **{**order, "amount_minor": 1600})
    other_currency = await create_payment(payments_stub, as_person, **order, currency="USD")
    assert other_amount.state == other_currency.state == pb.PAYMENT_STATE_AWAITING_CONFIRMATION


async def test_rewording_an_order_does_not_pay_it_again(
    payments_stub, payments_engine, card_claims, as_person, person
):
    """After a submitted or uncertain payment: the description's case, a
    double space, an added or another order reference are the same order."""
    for submitted, reason in ((True, "DUPLICATE_ORDER"), (False, "PAYMENT_UNCERTAIN")):
        order = {"task_id": f"task-{uuid.uuid4().hex[:8]}", "description": "1 blue teapot"}
        if submitted:
            earlier = await submitted_payment(payments_stub, as_person, card_claims, **order)
        else:
            earlier = await uncertain_payment(payments_stub, as_person, **order)
        count = await count_payments(payments_engine, person)
        for reworded in (
            {"description": "1 Blue Teapot"},
            {"description": "1 blue  teapot"},
            {"order_reference": "A-1001"},
        ):
            error = await expect_error(
                create(payments_stub, as_person, **{**order, **reworded}),
                grpc.StatusCode.FAILED_PRECONDITION,
                reason=reason,
            )
            assert error.metadata["payment_id"] == earlier.id
        assert await count_payments(payments_engine, person) == count


async def test_an_order_number_is_compared_without_case_spaces_or_punctuation(
    payments_stub, card_claims, as_person
):
    order = an_order(order_reference="A-1001")
    first = await submitted_payment(payments_stub, as_person, card_claims, **order)
    for written in ("a-1001", "A 1001", "#A1001"):
        error = await expect_error(
            create(
                payments_stub, as_person, **order | {"order_reference": written}, amount_minor=1
            ),
            grpc.StatusCode.FAILED_PRECONDITION,
            reason="DUPLICATE_ORDER",
        )
        assert error.metadata["payment_id"] == first.id


async def test_a_reworded_repeat_is_still_the_explicit_repeat(payments_stub, as_person):
    order = an_order()
    earlier = await uncertain_payment(payments_stub, as_person, **order)
    repeat = await create_payment(
        payments_stub,
        as_person,
        **order | {"description": "1 × Blue Teapot", "order_reference": "a1001"},
        repeat_of_payment_id=earlier.id,
    )
    assert repeat.repeat_of_payment_id == earlier.id
    await expect_error(
        create(payments_stub, as_person, **order, repeat_of_payment_id=earlier.id),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="DUPLICATE_ORDER",
    )


async def test_other_tasks_merchants_and_people_are_other_orders(
    payments_stub, as_person, service_token
):
    from nodkit.client import call_metadata

    order = an_order()
    await create_payment(payments_stub, as_person, **order)
    await create_payment(payments_stub, as_person, **{**order, "task_id": "another-task"})
    await create_payment(
        payments_stub, as_person, **order, merchant_origin="https://other-shop.example"
    )
    someone_else = call_metadata(service_token, f"person-{uuid.uuid4().hex[:8]}")
    await create_payment(payments_stub, someone_else, **order)


async def test_a_payment_that_was_never_made_frees_its_order(payments_stub, as_person):
    order = an_order()
    first = await create_payment(payments_stub, as_person, **order)
    await payments_stub.ConfirmPayment(
        pb.ConfirmPaymentRequest(payment_id=first.id, decision=pb.DECISION_NO), metadata=as_person
    )
    second = await create_payment(payments_stub, as_person, **order)
    await payments_stub.CancelForTask(
        pb.CancelForTaskRequest(task_id=order["task_id"]), metadata=as_person
    )
    third = await create_payment(payments_stub, as_person, **order)
    assert len({first.id, second.id, third.id}) == 3


async def test_after_an_uncertain_payment_the_person_must_check_first(
    payments_stub, payments_engine, as_person, person
):
    order = an_order()
    earlier = await uncertain_payment(payments_stub, as_person, **order)
    error = await expect_error(
        create(payments_stub, as_person, **order),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="PAYMENT_UNCERTAIN",
    )
    assert "check your bank or the merchant first" in error.message
    assert error.metadata["payment_id"] == earlier.id
    assert await count_payments(payments_engine, person) == 1


async def test_an_explicit_repeat_is_allowed_exactly_once(payments_stub, as_person):
    order = an_order()
    earlier = await uncertain_payment(payments_stub, as_person, **order)
    repeat = await create_payment(
        payments_stub, as_person, **order, repeat_of_payment_id=earlier.id
    )
    assert repeat.repeat_of_payment_id == earlier.id
    assert repeat.state == pb.PAYMENT_STATE_AWAITING_CONFIRMATION

    error = await expect_error(
        create(payments_stub, as_person, **order, repeat_of_payment_id=earlier.id),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="DUPLICATE_ORDER",
    )
    assert error.metadata["payment_id"] == repeat.id
    # Without the marker the order is still held by the uncertain payment.
    await expect_error(
        create(payments_stub, as_person, **order),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="PAYMENT_UNCERTAIN",
    )


async def test_a_repeat_of_the_repeat_once_it_is_final(payments_stub, card_claims, as_person):
    order = an_order()
    first = await submitted_payment(payments_stub, as_person, card_claims, **order)
    second = await submitted_payment(
        payments_stub, as_person, card_claims, **order, repeat_of_payment_id=first.id
    )
    third = await create_payment(payments_stub, as_person, **order, repeat_of_payment_id=second.id)
    assert third.repeat_of_payment_id == second.id


async def test_concurrent_requests_for_one_order_create_one_payment(
    payments_stub, payments_engine, as_person, person
):
    order = an_order()
    earlier = await uncertain_payment(payments_stub, as_person, **order)
    new_order = {**order, "order_reference": "B-2002", "amount_minor": 999}
    for fields in (new_order, {**order, "repeat_of_payment_id": earlier.id}):
        results = await asyncio.gather(
            *(create(payments_stub, as_person, **fields) for _ in range(16)),
            return_exceptions=True,
        )
        created = [r for r in results if isinstance(r, pb.CreatePaymentResponse)]
        refused = [NodRpcError(r) for r in results if isinstance(r, grpc.aio.AioRpcError)]
        assert len(created) == 1
        assert [e.reason for e in refused] == ["DUPLICATE_ORDER"] * 15
    assert await count_payments(payments_engine, person) == 3


async def test_a_repeat_must_name_a_finished_payment_for_the_same_order(
    payments_stub, payments_engine, as_person, person, service_token
):
    from nodkit.client import call_metadata

    order = an_order()
    under_way = await confirmed_payment(payments_stub, as_person, **order)
    refused = await create_payment(payments_stub, as_person, **an_order())
    await payments_stub.ConfirmPayment(
        pb.ConfirmPaymentRequest(payment_id=refused.id, decision=pb.DECISION_NO),
        metadata=as_person,
    )
    other_order = await uncertain_payment(payments_stub, as_person, **an_order())
    someone_else = call_metadata(service_token, f"person-{uuid.uuid4().hex[:8]}")
    theirs = await uncertain_payment(payments_stub, someone_else, **order)
    count = await count_payments(payments_engine, person)

    cases = [
        (under_way.id, grpc.StatusCode.FAILED_PRECONDITION, "REPEAT_OF_NOT_FINAL"),
        (refused.id, grpc.StatusCode.FAILED_PRECONDITION, "REPEAT_NOT_NEEDED"),
        (other_order.id, grpc.StatusCode.FAILED_PRECONDITION, "REPEAT_OF_OTHER_ORDER"),
        (theirs.id, grpc.StatusCode.NOT_FOUND, "PAYMENT_NOT_FOUND"),
        (str(uuid.uuid4()), grpc.StatusCode.NOT_FOUND, "PAYMENT_NOT_FOUND"),
    ]
    for repeat_of, code, reason in cases:
        await expect_error(
            create(payments_stub, as_person, **order, repeat_of_payment_id=repeat_of),
            code,
            reason=reason,
        )
    assert await count_payments(payments_engine, person) == count
