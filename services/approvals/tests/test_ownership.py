"""Every object belongs to one person: for anyone else it does not exist."""

import grpc

from nod.approvals.v1 import approvals_pb2 as pb
from nodkit.client import call_metadata
from nodtest.rpc import expect_error

from .support import connect_webhook, get_approval, propose


async def test_another_persons_approval_and_account_are_not_found(
    approvals_stub, as_person, service_token, webhook_app
):
    account = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    approval = await propose(approvals_stub, as_person, account, {"ref": 1})
    stranger = call_metadata(service_token, "someone-else")
    not_found = grpc.StatusCode.NOT_FOUND

    calls = [
        approvals_stub.GetApproval(
            pb.GetApprovalRequest(approval_id=approval.id), metadata=stranger
        ),
        approvals_stub.Decide(
            pb.DecideRequest(approval_id=approval.id, decision=pb.DECISION_YES), metadata=stranger
        ),
        approvals_stub.Decide(
            pb.DecideRequest(approval_id=approval.id, decision=pb.DECISION_NO), metadata=stranger
        ),
        approvals_stub.ListApprovalEvents(
            pb.ListApprovalEventsRequest(approval_id=approval.id), metadata=stranger
        ),
        approvals_stub.DisconnectAccount(
            pb.DisconnectAccountRequest(account_id=account.id), metadata=stranger
        ),
        approvals_stub.Propose(
            pb.ProposeRequest(
                task_id="t", account_id=account.id, action="post", summary="s", request_id="r-1"
            ),
            metadata=stranger,
        ),
    ]
    for call in calls:
        await expect_error(call, not_found)
    watch = approvals_stub.WatchApproval(
        pb.WatchApprovalRequest(approval_id=approval.id), metadata=stranger
    )
    await expect_error(watch.read(), not_found)

    listed = await approvals_stub.ListApprovals(pb.ListApprovalsRequest(), metadata=stranger)
    accounts = await approvals_stub.ListAccounts(pb.ListAccountsRequest(), metadata=stranger)
    cancelled = await approvals_stub.CancelForTask(
        pb.CancelForTaskRequest(task_id=approval.task_id), metadata=stranger
    )
    assert list(listed.approvals) == list(accounts.accounts) == list(cancelled.approvals) == []
    mine = await get_approval(approvals_stub, as_person, approval.id)
    assert mine.state == pb.APPROVAL_STATE_PENDING
    assert webhook_app.state.received == []


async def test_a_call_without_a_person_is_refused(approvals_stub, service_token):
    await expect_error(
        approvals_stub.ListAccounts(
            pb.ListAccountsRequest(), metadata=call_metadata(service_token)
        ),
        grpc.StatusCode.UNAUTHENTICATED,
        reason="MISSING_USER",
    )


async def test_list_pages_through_a_tasks_approvals_by_state(
    approvals_stub, as_person, webhook_app
):
    account = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    task_id = "task-paged"
    made = [
        await propose(approvals_stub, as_person, account, {"ref": i}, task_id=task_id)
        for i in range(5)
    ]
    await propose(approvals_stub, as_person, account, {"ref": "elsewhere"})
    await approvals_stub.Decide(
        pb.DecideRequest(approval_id=made[0].id, decision=pb.DECISION_NO), metadata=as_person
    )

    seen, token = [], ""
    while True:
        page = await approvals_stub.ListApprovals(
            pb.ListApprovalsRequest(
                task_id=task_id, state=pb.APPROVAL_STATE_PENDING, page_size=2, page_token=token
            ),
            metadata=as_person,
        )
        seen += [a.id for a in page.approvals]
        token = page.next_page_token
        if not token:
            break
    assert seen == [a.id for a in made[1:]]
