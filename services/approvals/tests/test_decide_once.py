"""G7: of any number of concurrent decisions exactly one wins, and a winning
yes sends the action exactly once."""

import asyncio
from collections import Counter

import grpc

from nod.approvals.v1 import approvals_pb2 as pb
from nodkit.client import NodRpcError
from nodtest.rpc import expect_error

from .support import connect_webhook, decide, get_approval, propose

APPROVALS = 100
TABS = 32


async def test_32_concurrent_yeses_send_once_each_over_100_approvals(
    approvals_stub, as_person, webhook_app, db
):
    account = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    for ref in range(APPROVALS):
        approval = await propose(approvals_stub, as_person, account, {"ref": ref})
        replies = await asyncio.gather(
            *(decide(approvals_stub, as_person, approval.id) for _ in range(TABS))
        )
        assert {r.state for r in replies} == {pb.APPROVAL_STATE_APPROVED}
        assert {r.execution_id for r in replies} == {replies[0].execution_id}
        assert any(r.execution_state == pb.EXECUTION_STATE_DONE for r in replies)

    sends = Counter(entry["body"]["ref"] for entry in webhook_app.state.received)
    assert sends == Counter(range(APPROVALS))
    assert len(webhook_app.state.received) == APPROVALS
    rows = await db.execute(
        "SELECT count(*), count(DISTINCT e.approval_id) FROM approvals.executions e"
        " JOIN approvals.approvals a ON a.id = e.approval_id"
        " WHERE a.account_id = %s",
        (account.id,),
    )
    assert await rows.fetchone() == (APPROVALS, APPROVALS)


async def test_a_yes_and_a_no_racing_have_exactly_one_winner(
    approvals_stub, as_person, webhook_app
):
    account = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    yes_wins = 0
    for ref in range(30):
        approval = await propose(approvals_stub, as_person, account, {"ref": ref})
        yes, no = await asyncio.gather(
            decide(approvals_stub, as_person, approval.id, pb.DECISION_YES),
            decide(approvals_stub, as_person, approval.id, pb.DECISION_NO),
            return_exceptions=True,
        )
        final = await get_approval(approvals_stub, as_person, approval.id)
        if final.state == pb.APPROVAL_STATE_APPROVED:
            yes_wins += 1
            assert yes.execution_state == pb.EXECUTION_STATE_DONE
            assert refusal(no) == "ALREADY_DECIDED_YES"
        else:
            assert final.state == pb.APPROVAL_STATE_REJECTED
            assert no.state == pb.APPROVAL_STATE_REJECTED
            assert refusal(yes) == "ALREADY_DECIDED_NO"
            assert final.execution_state == pb.EXECUTION_STATE_UNSPECIFIED
    sent = [entry["body"]["ref"] for entry in webhook_app.state.received]
    assert len(sent) == len(set(sent)) == yes_wins


def refusal(outcome) -> str:
    assert isinstance(outcome, grpc.aio.AioRpcError), f"expected a refusal, got {outcome}"
    error = NodRpcError(outcome)
    assert error.code == grpc.StatusCode.FAILED_PRECONDITION, error
    return error.reason


async def test_a_second_yes_answers_the_approval_and_runs_nothing(
    approvals_stub, as_person, webhook_app
):
    account = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    approval = await propose(approvals_stub, as_person, account, {"ref": "once"})
    first = await decide(approvals_stub, as_person, approval.id)
    again = await decide(approvals_stub, as_person, approval.id)

    assert again == first
    assert first.execution_state == pb.EXECUTION_STATE_DONE
    assert len(webhook_app.state.received) == 1
    await expect_error(
        approvals_stub.Decide(
            pb.DecideRequest(approval_id=approval.id, decision=pb.DECISION_NO), metadata=as_person
        ),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="ALREADY_DECIDED_YES",
    )
