"""The app's answer decides the end (G4, G5, G7): DONE, FAILED on a definite
refusal, UNCERTAIN without a definite answer. Never a second request, not
even after a restart."""

import grpc
import pytest

from nod.approvals.v1 import approvals_pb2 as pb
from nodtest.processes import free_port
from nodtest.rpc import expect_error

from .support import (
    CANARY_TOKEN,
    connect_webhook,
    decide,
    get_approval,
    propose,
    wait_for_approval,
)

RUNNING = pb.EXECUTION_STATE_RUNNING


@pytest.mark.parametrize(
    ("mode", "why"),
    [
        ("error", "HTTP 500"),
        ("hang", "gave no answer"),
        ("drop", "connection to the app broke"),
    ],
)
async def test_no_definite_answer_is_uncertain_and_never_sent_again(
    approvals_factory, as_person, webhook_app, mode, why
):
    instance = f"approvals-{mode}"
    server = await approvals_factory(instance, webhook_timeout_s=0.5)
    account = await connect_webhook(server.stub, as_person, webhook_app.hook_url())
    approval = await propose(server.stub, as_person, account, {"ref": mode})
    webhook_app.state.set_mode(mode)

    decided = await decide(server.stub, as_person, approval.id)

    assert decided.execution_state == pb.EXECUTION_STATE_UNCERTAIN
    assert why in decided.reason and "check the app" in decided.reason
    assert len(webhook_app.state.received) == 1

    webhook_app.state.set_mode("ok")
    webhook_app.state.release()
    await server.stop()
    restarted = await approvals_factory(instance, webhook_timeout_s=0.5)
    again = await decide(restarted.stub, as_person, approval.id)

    assert again.execution_state == pb.EXECUTION_STATE_UNCERTAIN
    assert again.execution_id == decided.execution_id
    assert len(webhook_app.state.received) == 1


async def test_a_rejection_by_the_app_fails_with_its_message(
    approvals_stub, as_person, webhook_app
):
    account = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    approval = await propose(approvals_stub, as_person, account, {"ref": 1})
    webhook_app.state.set_mode("reject", message=f"channel is archived ({CANARY_TOKEN})")

    decided = await decide(approvals_stub, as_person, approval.id)

    assert decided.execution_state == pb.EXECUTION_STATE_FAILED
    assert "HTTP 422" in decided.reason and "channel is archived" in decided.reason
    # An app echoing a credential back never gets it shown.
    assert CANARY_TOKEN not in decided.reason
    assert len(webhook_app.state.received) == 1
    again = await decide(approvals_stub, as_person, approval.id)
    assert again == decided
    assert len(webhook_app.state.received) == 1


async def test_an_app_that_refuses_connections_got_nothing(approvals_stub, as_person):
    closed_port = free_port()
    url = f"http://127.0.0.1:{closed_port}/hooks/orders"
    account = await connect_webhook(approvals_stub, as_person, url)
    approval = await propose(approvals_stub, as_person, account, {"ref": 1})

    decided = await decide(approvals_stub, as_person, approval.id)

    assert decided.execution_state == pb.EXECUTION_STATE_NOT_RUN
    assert "could not connect" in decided.reason


async def test_a_slow_app_within_the_deadline_is_done(approvals_stub, as_person, webhook_app):
    account = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    approval = await propose(approvals_stub, as_person, account, {"ref": 1})
    webhook_app.state.set_mode("slow", seconds=0.3)

    decided = await decide(approvals_stub, as_person, approval.id)

    assert decided.execution_state == pb.EXECUTION_STATE_DONE
    assert (await get_approval(approvals_stub, as_person, approval.id)) == decided


async def test_a_caller_giving_up_does_not_cut_the_execution_short(
    approvals_stub, as_person, webhook_app
):
    account = await connect_webhook(approvals_stub, as_person, webhook_app.hook_url())
    approval = await propose(approvals_stub, as_person, account, {"ref": 1})
    webhook_app.state.set_mode("slow", seconds=1.0)

    await expect_error(
        decide(approvals_stub, as_person, approval.id, timeout=0.3),
        grpc.StatusCode.DEADLINE_EXCEEDED,
    )
    done = await wait_for_approval(
        approvals_stub, as_person, approval.id, lambda a: a.execution_state != RUNNING
    )

    assert done.execution_state == pb.EXECUTION_STATE_DONE
    assert len(webhook_app.state.received) == 1
