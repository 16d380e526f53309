"""G11 when a service can't be told of a Stop at once: the task is STOPPED
anyway and Stop answers, the services that could be told were told (a late
yes finds its approval cancelled), and once the missing one answers again
the clean-up is done from what the services now say. Here the payments
service stops answering (a frozen connection) while a task waits for a yes
to an app action."""

import asyncio

import grpc

from nod.approvals.v1 import approvals_pb2 as approvals
from nod.tasks.v1 import tasks_pb2 as pb
from nod_tasks.adapters.models.scripted import DEMO_TASKS
from nodtest.proxy import FreezableProxy
from nodtest.rpc import expect_error

from .support import begin, steps_of, wait_for, waiting


async def test_a_stop_that_payments_did_not_hear_is_finished_once_it_answers(
    tasks_with, model_server, demo_person, peers, webhook_app, log_tee
):
    host, port = peers.payments.address.rsplit(":", 1)
    to_payments = await FreezableProxy(host, int(port)).start()
    try:
        model_server.plan_as_scripted(demo_person.context(""))
        stub = await tasks_with(
            model_url=model_server.url,
            payments_addr=f"127.0.0.1:{to_payments.port}",
            peer_timeout_s=1.0,
            sweep_interval_s=0.2,
        )
        meta = demo_person.meta
        task = await begin(stub, demo_person, DEMO_TASKS["note"])
        decision = await wait_for(stub, meta, task.id, waiting(pb.WAIT_KIND_DECISION))
        approval_id = decision.wait.id

        to_payments.freeze()
        started = asyncio.get_running_loop().time()
        stopped = await stub.Stop(pb.StopRequest(task_id=task.id), metadata=meta, timeout=10)
        took_s = asyncio.get_running_loop().time() - started

        assert [t.state for t in stopped.tasks] == [pb.TASK_STATE_STOPPED]
        assert took_s < 5, f"Stop answered after {took_s:.1f} s"
        # Approvals was told at once: a late yes runs nothing.
        await expect_error(
            demo_person.approvals.Decide(
                approvals.DecideRequest(approval_id=approval_id, decision=approvals.DECISION_YES),
                metadata=meta,
            ),
            grpc.StatusCode.FAILED_PRECONDITION,
            reason="CANCELLED",
        )
        # Payments wasn't: the clean-up waits (retried every round, in vain).
        await asyncio.sleep(1.5)
        proposal = await _proposal(stub, meta, task.id)
        assert (proposal.state, proposal.approval_id) == (pb.STEP_STATE_RUNNING, approval_id)
        pending = [line for line in log_tee.lines if "stop.cleanup_pending" in line]
        assert any(task.id in line and "CancelForTask" in line for line in pending)

        to_payments.thaw()
        proposal = await _ended_proposal(stub, meta, task.id)

        # The approval was cancelled by the first try, whose answer said so;
        # the retry's cancel cancels nothing more. The step still ends as
        # what it was: unanswered, nothing done (not "it may have run").
        assert proposal.state == pb.STEP_STATE_NOT_RUN, proposal.reason
        assert "stopped before the person answered" in proposal.reason
        assert proposal.approval_id == approval_id
        assert webhook_app.received == []
        task_now = (await stub.GetTask(pb.GetTaskRequest(task_id=task.id), metadata=meta)).task
        assert task_now.state == pb.TASK_STATE_STOPPED
    finally:
        await to_payments.close()


async def _proposal(stub, meta, task_id: str) -> pb.Step:
    (step,) = [s for s in await steps_of(stub, meta, task_id) if s.tool == "propose_app_action"]
    return step


async def _ended_proposal(stub, meta, task_id: str) -> pb.Step:
    deadline = asyncio.get_running_loop().time() + 20
    while (step := await _proposal(stub, meta, task_id)).state == pb.STEP_STATE_RUNNING:
        assert asyncio.get_running_loop().time() < deadline, "the clean-up never finished"
        await asyncio.sleep(0.1)
    return step
