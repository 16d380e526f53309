"""WatchApproval carries every change until the approval is final, and every
state change is in the approval's history."""

import asyncio

from nod.approvals.v1 import approvals_pb2 as pb

from .support import connect_webhook, decide, propose


async def test_a_watcher_sees_pending_running_and_done_then_the_stream_ends(
    approvals_stub, approvals_hooks, as_person, webhook_app
):
    account = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    approval = await propose(approvals_stub, as_person, account, {"ref": 1})
    seen_pending, seen_running = asyncio.Event(), asyncio.Event()
    seen = []

    async def watch():
        request = pb.WatchApprovalRequest(approval_id=approval.id)
        async for reply in approvals_stub.WatchApproval(request, metadata=as_person, timeout=10):
            seen.append((reply.approval.state, reply.approval.execution_state))
            seen_pending.set()
            if reply.approval.execution_state == pb.EXECUTION_STATE_RUNNING:
                seen_running.set()

    async def hold_until_watched(execution):
        await asyncio.wait_for(seen_running.wait(), 5)

    approvals_hooks.set(approval.id, hold_until_watched)
    watcher = asyncio.ensure_future(watch())
    await asyncio.wait_for(seen_pending.wait(), 5)
    await decide(approvals_stub, as_person, approval.id)
    await asyncio.wait_for(watcher, 10)

    assert seen == [
        (pb.APPROVAL_STATE_PENDING, pb.EXECUTION_STATE_UNSPECIFIED),
        (pb.APPROVAL_STATE_APPROVED, pb.EXECUTION_STATE_RUNNING),
        (pb.APPROVAL_STATE_APPROVED, pb.EXECUTION_STATE_DONE),
    ]


async def test_every_change_is_in_the_history(approvals_stub, as_person, person, webhook_app):
    account = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    approval = await propose(approvals_stub, as_person, account, {"ref": 1})
    decided = await decide(approvals_stub, as_person, approval.id)

    reply = await approvals_stub.ListApprovalEvents(
        pb.ListApprovalEventsRequest(approval_id=approval.id), metadata=as_person
    )

    assert [(e.subject, e.from_state, e.to_state, e.actor) for e in reply.events] == [
        ("approval", "", "pending", f"person:{person}"),
        ("approval", "pending", "approved", f"person:{person}"),
        ("execution", "", "running", "instance:approvals-test"),
        ("execution", "running", "done", "instance:approvals-test"),
    ]
    assert all(e.at.seconds > 0 for e in reply.events)
    assert decided.finished_at.seconds > 0


async def test_a_watch_hears_a_decision_made_on_another_instance_at_once(
    approvals_factory, as_person, webhook_app
):
    # The watched instance never looks on its own within the test.
    watched = await approvals_factory("approvals-watched", watch_poll_s=120)
    deciding = await approvals_factory("approvals-deciding")
    account = await connect_webhook(deciding.stub, as_person, webhook_app.hook_url())
    approval = await propose(deciding.stub, as_person, account, {"ref": 2})
    seen = []

    async def watch():
        request = pb.WatchApprovalRequest(approval_id=approval.id)
        async for reply in watched.stub.WatchApproval(request, metadata=as_person, timeout=60):
            seen.append((reply.approval.state, reply.approval.execution_state))

    watcher = asyncio.ensure_future(watch())
    await asyncio.sleep(0.3)
    await decide(deciding.stub, as_person, approval.id)
    await asyncio.wait_for(watcher, 15)

    assert seen[0] == (pb.APPROVAL_STATE_PENDING, pb.EXECUTION_STATE_UNSPECIFIED)
    assert seen[-1] == (pb.APPROVAL_STATE_APPROVED, pb.EXECUTION_STATE_DONE)
