"""G7: if the account was disconnected after nod asked, nothing is sent and
the task is told why."""

import grpc

from nod.approvals.v1 import approvals_pb2 as pb
from nodtest.rpc import expect_error

from .support import connect_webhook, decide, propose, wait_for_approval


async def disconnect(stub, meta, account_id):
    request = pb.DisconnectAccountRequest(account_id=account_id)
    return (await stub.DisconnectAccount(request, metadata=meta)).account


async def test_disconnected_between_proposal_and_yes(approvals_stub, as_person, webhook_app):
    account = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    approval = await propose(approvals_stub, as_person, account, {"ref": 1})
    await disconnect(approvals_stub, as_person, account.id)

    decided = await decide(approvals_stub, as_person, approval.id)

    assert decided.state == pb.APPROVAL_STATE_APPROVED
    assert decided.execution_state == pb.EXECUTION_STATE_NOT_RUN
    assert "account was disconnected" in decided.reason
    assert webhook_app.state.received == []
    # And no new proposal can name it.
    await expect_error(
        approvals_stub.Propose(
            pb.ProposeRequest(
                task_id="t", account_id=account.id, action="post", summary="post", request_id="r-1"
            ),
            metadata=as_person,
        ),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="ACCOUNT_DISCONNECTED",
    )


async def test_disconnected_between_yes_and_send(
    approvals_stub, approvals_hooks, as_person, webhook_app
):
    account = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    approval = await propose(approvals_stub, as_person, account, {"ref": 1})
    seen = []

    async def disconnect_now(execution):
        seen.append(execution.id)
        await disconnect(approvals_stub, as_person, account.id)

    approvals_hooks.set(approval.id, disconnect_now)

    decided = await decide(approvals_stub, as_person, approval.id)

    assert seen == [decided.execution_id]
    assert decided.execution_state == pb.EXECUTION_STATE_NOT_RUN
    assert "account was disconnected" in decided.reason
    assert webhook_app.state.received == []
    watched = await wait_for_approval(
        approvals_stub, as_person, approval.id, lambda a: a.execution_state != 0
    )
    assert watched.execution_state == pb.EXECUTION_STATE_NOT_RUN
    assert watched.reason == decided.reason
