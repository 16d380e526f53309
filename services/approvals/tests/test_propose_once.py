"""One request, one record: a Propose resent with the same request_id and
content answers the approval it made; other content under that request_id is
refused ALREADY_EXISTS (REQUEST_ID_REUSED) and changes nothing."""

import asyncio

import grpc
import pytest

from nod.approvals.v1 import approvals_pb2 as pb
from nodkit.client import call_metadata
from nodtest.rpc import expect_error

from .support import (
    connect_webhook,
    decide,
    get_approval,
    proposal,
    snapshot,
    struct,
)


async def rows_for(db, person: str, request_id: str) -> int:
    cursor = await db.execute(
        "SELECT count(*) FROM approvals.approvals WHERE owner = %s AND request_id = %s",
        (person, request_id),
    )
    return (await cursor.fetchone())[0]


async def test_three_resends_make_one_approval_and_two_yeses_send_once(
    approvals_stub, as_person, person, webhook_app, db
):
    account = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    request = proposal(account, {"order": 1042})

    replies = [await approvals_stub.Propose(request, metadata=as_person) for _ in range(3)]
    yeses = await asyncio.gather(
        *(decide(approvals_stub, as_person, replies[0].approval.id) for _ in range(2))
    )

    assert {reply.approval.id for reply in replies} == {replies[0].approval.id}
    assert replies[0].approval.request_id == request.request_id
    assert await rows_for(db, person, request.request_id) == 1
    assert {yes.execution_id for yes in yeses} == {yeses[0].execution_id}
    assert len(webhook_app.state.received) == 1
    events = await approvals_stub.ListApprovalEvents(
        pb.ListApprovalEventsRequest(approval_id=replies[0].approval.id), metadata=as_person
    )
    assert [(e.subject, e.to_state) for e in events.events] == [
        ("approval", "pending"),
        ("approval", "approved"),
        ("execution", "running"),
        ("execution", "done"),
    ]


async def test_concurrent_resends_find_the_one_approval(
    approvals_stub, as_person, person, webhook_app, db
):
    account = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    request = proposal(account, {"order": 7})

    replies = await asyncio.gather(
        *(approvals_stub.Propose(request, metadata=as_person) for _ in range(16))
    )

    assert len({reply.approval.id for reply in replies}) == 1
    assert await rows_for(db, person, request.request_id) == 1


async def test_a_resend_is_the_same_proposal_once_normalised(
    approvals_stub, as_person, webhook_app
):
    account = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    first = proposal(account, {"qty": 2, "items": [{"n": 1}]})
    resent = pb.ProposeRequest()
    resent.CopyFrom(first)
    resent.parameters.CopyFrom(struct({"items": [{"n": 1.0}], "qty": 2.0}))

    made = (await approvals_stub.Propose(first, metadata=as_person)).approval
    again = (await approvals_stub.Propose(resent, metadata=as_person)).approval

    assert again == made


@pytest.mark.parametrize(
    "change",
    [
        {"parameters": struct({"order": 1043})},
        {"summary": "post something else"},
        {"task_id": "another-task"},
        {"account_id": "another account"},
    ],
)
async def test_other_content_under_a_used_request_id_is_refused(
    approvals_stub, as_person, webhook_app, db, change
):
    account = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    first = proposal(account, {"order": 1042})
    made = (await approvals_stub.Propose(first, metadata=as_person)).approval
    another = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url("b"))
    other = pb.ProposeRequest()
    other.CopyFrom(first)
    for name, value in change.items():
        if name == "parameters":
            other.parameters.CopyFrom(value)
        else:
            setattr(other, name, another.id if name == "account_id" else value)
    before = await snapshot(db)

    await expect_error(
        approvals_stub.Propose(other, metadata=as_person),
        grpc.StatusCode.ALREADY_EXISTS,
        reason="REQUEST_ID_REUSED",
    )

    assert await snapshot(db) == before
    assert await get_approval(approvals_stub, as_person, made.id) == made


async def test_a_resend_after_the_account_was_disconnected_finds_its_approval(
    approvals_stub, as_person, webhook_app
):
    account = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    request = proposal(account, {"order": 1})
    made = (await approvals_stub.Propose(request, metadata=as_person)).approval
    await approvals_stub.DisconnectAccount(
        pb.DisconnectAccountRequest(account_id=account.id), metadata=as_person
    )

    again = (await approvals_stub.Propose(request, metadata=as_person)).approval

    assert again == made


async def test_request_ids_are_each_persons_own(
    approvals_stub, as_person, service_token, webhook_app
):
    other_person = call_metadata(service_token, "person-with-the-same-request-id")
    mine = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    theirs = await connect_webhook(approvals_stub, other_person, webhook_app.hook_url())
    shared_id = proposal(mine, {}).request_id

    a = (
        await approvals_stub.Propose(
            proposal(mine, {"x": 1}, request_id=shared_id), metadata=as_person
        )
    ).approval
    b = (
        await approvals_stub.Propose(
            proposal(theirs, {"x": 2}, request_id=shared_id), metadata=other_person
        )
    ).approval

    assert a.id != b.id and a.request_id == b.request_id == shared_id
