"""A yes after no, after Stop (CancelForTask) or after expiry runs nothing
and says why (G7, G11)."""

import grpc

from nod.approvals.v1 import approvals_pb2 as pb
from nodtest.rpc import expect_error

from .support import connect_webhook, decide, get_approval, propose, task


def yes(stub, meta, approval_id):
    request = pb.DecideRequest(approval_id=approval_id, decision=pb.DECISION_YES)
    return stub.Decide(request, metadata=meta)


async def test_a_yes_after_no_runs_nothing(approvals_stub, as_person, webhook_app):
    account = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    approval = await propose(approvals_stub, as_person, account, {"ref": 1})
    rejected = await decide(approvals_stub, as_person, approval.id, pb.DECISION_NO)
    again = await decide(approvals_stub, as_person, approval.id, pb.DECISION_NO)

    await expect_error(
        yes(approvals_stub, as_person, approval.id),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="ALREADY_DECIDED_NO",
    )
    assert rejected.state == again.state == pb.APPROVAL_STATE_REJECTED
    assert rejected.execution_state == pb.EXECUTION_STATE_UNSPECIFIED
    assert webhook_app.state.received == []


async def test_cancel_for_task_stops_its_pending_approvals_only(
    approvals_stub, as_person, webhook_app
):
    account = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    task_id = task()
    waiting = await propose(approvals_stub, as_person, account, {"ref": 1}, task_id=task_id)
    done = await propose(approvals_stub, as_person, account, {"ref": 2}, task_id=task_id)
    other_task = await propose(approvals_stub, as_person, account, {"ref": 3})
    await decide(approvals_stub, as_person, done.id)

    reply = await approvals_stub.CancelForTask(
        pb.CancelForTaskRequest(task_id=task_id, reason="the person pressed Stop"),
        metadata=as_person,
    )

    assert [a.id for a in reply.approvals] == [waiting.id]
    assert reply.approvals[0].state == pb.APPROVAL_STATE_CANCELLED
    assert reply.approvals[0].reason == "the person pressed Stop"
    await expect_error(
        yes(approvals_stub, as_person, waiting.id),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="CANCELLED",
    )
    kept = await get_approval(approvals_stub, as_person, done.id)
    assert kept.execution_state == pb.EXECUTION_STATE_DONE
    untouched = await get_approval(approvals_stub, as_person, other_task.id)
    assert untouched.state == pb.APPROVAL_STATE_PENDING
    assert [e["body"]["ref"] for e in webhook_app.state.received] == [2]


async def test_expiry_is_checked_by_the_decision_itself(
    approvals_factory, as_person, webhook_app, db
):
    # No sweeper runs during this test: only the conditional update sees the expiry.
    server = await approvals_factory("approvals-expiry", approval_ttl_s=0.3, sweep_interval_s=3600)
    account = await connect_webhook(server.stub, as_person, webhook_app.hook_url())
    approval = await propose(server.stub, as_person, account, {"ref": 1})
    await wait_until_past(db, approval.id)

    error = await expect_error(
        yes(server.stub, as_person, approval.id),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="EXPIRED",
    )

    assert error.metadata["state"] == "expired"
    assert (await get_approval(server.stub, as_person, approval.id)).state == (
        pb.APPROVAL_STATE_EXPIRED
    )
    assert webhook_app.state.received == []


async def wait_until_past(db, approval_id: str) -> None:
    """Polls the database clock (with a deadline) until the approval's time is up."""
    for _ in range(100):
        cursor = await db.execute(
            "SELECT now() > expires_at FROM approvals.approvals WHERE id = %s", (approval_id,)
        )
        if (await cursor.fetchone())[0]:
            return
        await db.execute("SELECT pg_sleep(0.02)")
    raise AssertionError("the approval never reached its expiry")


async def test_the_sweeper_expires_a_pending_approval_and_watchers_see_it(
    approvals_factory, as_person, webhook_app
):
    server = await approvals_factory("approvals-sweeper", approval_ttl_s=0.3, sweep_interval_s=0.1)
    account = await connect_webhook(server.stub, as_person, webhook_app.hook_url())
    approval = await propose(server.stub, as_person, account, {"ref": 1})

    states = [
        reply.approval.state
        async for reply in server.stub.WatchApproval(
            pb.WatchApprovalRequest(approval_id=approval.id), metadata=as_person, timeout=10
        )
    ]

    assert states == [pb.APPROVAL_STATE_PENDING, pb.APPROVAL_STATE_EXPIRED]
    await expect_error(
        yes(server.stub, as_person, approval.id),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="EXPIRED",
    )
    assert webhook_app.state.received == []
