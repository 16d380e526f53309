"""DESIGN.md "Possible duplicate": a proposal whose action and normalised
parameters (same account) match an earlier one in the same task is marked as
a possible duplicate of the first of them and shown beside it; its yes needs
the person's second confirmation (confirm_duplicate). A resend with the same
request_id is the same approval, not a duplicate."""

import asyncio

import grpc

from nod.approvals.v1 import approvals_pb2 as pb
from nodtest.rpc import expect_error

from .support import (
    connect_webhook,
    decide,
    get_approval,
    proposal,
    propose,
    snapshot,
    struct,
    task,
)


async def test_a_repeated_action_in_a_task_is_marked_beside_the_first(
    approvals_stub, as_person, webhook_app
):
    account = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    task_id = task()
    first = await propose(
        approvals_stub, as_person, account, {"order": 1, "qty": 2}, task_id=task_id
    )
    # The same once normalised (2.0 is 2), under another request id and summary.
    second = await propose(
        approvals_stub,
        as_person,
        account,
        {"qty": 2.0, "order": 1},
        task_id=task_id,
        summary="order 1 again",
    )
    third = await propose(
        approvals_stub, as_person, account, {"order": 1, "qty": 2}, task_id=task_id
    )

    assert first.possible_duplicate_of == "" and not first.HasField("earlier")
    assert second.possible_duplicate_of == third.possible_duplicate_of == first.id
    assert second.earlier == pb.EarlierApproval(
        state=pb.APPROVAL_STATE_PENDING, created_at=first.created_at
    )


async def test_other_tasks_parameters_or_accounts_are_no_duplicates(
    approvals_stub, as_person, webhook_app
):
    account = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    other_account = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    task_id = task()
    await propose(approvals_stub, as_person, account, {"order": 1}, task_id=task_id)

    others = [
        await propose(approvals_stub, as_person, account, {"order": 1}),  # another task
        await propose(approvals_stub, as_person, account, {"order": 2}, task_id=task_id),
        await propose(approvals_stub, as_person, other_account, {"order": 1}, task_id=task_id),
    ]

    assert [a.possible_duplicate_of for a in others] == ["", "", ""]


async def test_a_duplicates_yes_needs_a_second_confirmation(
    approvals_stub, as_person, webhook_app, db
):
    account = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    task_id = task()
    first = await propose(approvals_stub, as_person, account, {"order": 1}, task_id=task_id)
    done = await decide(approvals_stub, as_person, first.id)
    again = await propose(approvals_stub, as_person, account, {"order": 1}, task_id=task_id)
    before = await snapshot(db)

    # Shown beside the earlier one's outcome, as GetApproval shows it.
    assert again.possible_duplicate_of == first.id
    assert again.earlier.state == pb.APPROVAL_STATE_APPROVED
    assert again.earlier.execution_id == done.execution_id
    assert again.earlier.execution_state == pb.EXECUTION_STATE_DONE
    assert again.earlier.result == done.result and again.earlier.finished_at == done.finished_at
    error = await expect_error(
        approvals_stub.Decide(
            pb.DecideRequest(approval_id=again.id, decision=pb.DECISION_YES), metadata=as_person
        ),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="DUPLICATE_NEEDS_CONFIRMATION",
    )
    assert error.metadata["possible_duplicate_of"] == first.id
    assert await snapshot(db) == before
    assert len(webhook_app.state.received) == 1

    confirmed = (
        await approvals_stub.Decide(
            pb.DecideRequest(
                approval_id=again.id, decision=pb.DECISION_YES, confirm_duplicate=True
            ),
            metadata=as_person,
        )
    ).approval

    assert confirmed.execution_state == pb.EXECUTION_STATE_DONE
    assert confirmed.execution_id != done.execution_id
    assert len(webhook_app.state.received) == 2
    # The same yes again answers the approval and runs nothing.
    assert await decide(approvals_stub, as_person, again.id) == confirmed
    assert len(webhook_app.state.received) == 2


async def test_a_no_to_a_duplicate_needs_no_confirmation(approvals_stub, as_person, webhook_app):
    account = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    task_id = task()
    await propose(approvals_stub, as_person, account, {"order": 1}, task_id=task_id)
    again = await propose(approvals_stub, as_person, account, {"order": 1}, task_id=task_id)

    rejected = await decide(approvals_stub, as_person, again.id, pb.DECISION_NO)

    assert rejected.state == pb.APPROVAL_STATE_REJECTED
    assert webhook_app.state.received == []


async def test_a_resend_is_the_same_approval_not_a_duplicate(
    approvals_stub, as_person, webhook_app
):
    account = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    request = proposal(account, {"order": 1})

    made = (await approvals_stub.Propose(request, metadata=as_person)).approval
    resent = (await approvals_stub.Propose(request, metadata=as_person)).approval

    assert resent == made and made.possible_duplicate_of == ""
    assert (await decide(approvals_stub, as_person, made.id)).execution_state == (
        pb.EXECUTION_STATE_DONE
    )


async def test_of_concurrent_repeats_exactly_one_is_the_first(
    approvals_stub, as_person, webhook_app
):
    account = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    task_id = task()
    requests = [proposal(account, {"order": 1}, task_id=task_id) for _ in range(12)]

    replies = await asyncio.gather(
        *(approvals_stub.Propose(request, metadata=as_person) for request in requests)
    )

    [first] = [r.approval for r in replies if not r.approval.possible_duplicate_of]
    assert {r.approval.possible_duplicate_of for r in replies} == {"", first.id}
    yeses = await asyncio.gather(
        *(decide(approvals_stub, as_person, r.approval.id) for r in replies),
        return_exceptions=True,
    )
    assert [y.execution_state for y in yeses if isinstance(y, pb.Approval)] == [
        pb.EXECUTION_STATE_DONE
    ]
    assert len(webhook_app.state.received) == 1


async def test_the_earlier_ones_outcome_is_read_fresh(approvals_stub, as_person, webhook_app):
    account = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    task_id = task()
    first = await propose(approvals_stub, as_person, account, {"order": 1}, task_id=task_id)
    again = await propose(approvals_stub, as_person, account, {"order": 1}, task_id=task_id)
    await approvals_stub.CancelForTask(
        pb.CancelForTaskRequest(task_id=task_id, reason="the person pressed Stop"),
        metadata=as_person,
    )

    shown = await get_approval(approvals_stub, as_person, again.id)
    listed = await approvals_stub.ListApprovals(
        pb.ListApprovalsRequest(task_id=task_id), metadata=as_person
    )

    assert shown.earlier.state == pb.APPROVAL_STATE_CANCELLED
    assert shown.earlier.reason == "the person pressed Stop"
    assert [a.possible_duplicate_of for a in listed.approvals] == ["", first.id]
    assert listed.approvals[1] == shown
    assert struct({"order": 1}) == shown.parameters
