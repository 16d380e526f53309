"""G11 when a service can't be told of a Stop at once: the task is STOPPED
anyway and Stop answers in time, the services that could be told were told
(a late yes finds its approval cancelled), and once the missing one answers
again the clean-up is done from what the services now say. Here the
payments service stops answering (a frozen connection) while a task waits
for a yes to an app action."""

import asyncio
from dataclasses import dataclass

import grpc
import pytest

from nod.approvals.v1 import approvals_pb2 as approvals
from nod.tasks.v1 import tasks_pb2 as pb
from nod_tasks.adapters.models.scripted import DEMO_TASKS
from nod_tasks.app.stop import TOLD_WITHIN_S
from nodtest.proxy import FreezableProxy
from nodtest.rpc import expect_error

from .support import Person, begin, steps_of, wait_for, waiting


@dataclass
class StoppedUnheard:
    stub: object
    person: Person
    task_id: str
    approval_id: str
    to_payments: FreezableProxy
    stop_took_s: float


@pytest.fixture
async def stopped_unheard(request, tasks_with, model_server, demo_person, peers):
    """A task waiting for a yes, stopped while payments doesn't answer; the
    tasks service's peer calls time out after request.param seconds."""
    peer_timeout_s = request.param
    host, port = peers.payments.address.rsplit(":", 1)
    to_payments = await FreezableProxy(host, int(port)).start()
    model_server.plan_as_scripted(demo_person.context(""))
    stub = await tasks_with(
        model_url=model_server.url,
        payments_addr=f"127.0.0.1:{to_payments.port}",
        peer_timeout_s=peer_timeout_s,
        sweep_interval_s=0.2,
    )
    meta = demo_person.meta
    task = await begin(stub, demo_person, DEMO_TASKS["note"])
    decision = await wait_for(stub, meta, task.id, waiting(pb.WAIT_KIND_DECISION))

    to_payments.freeze()
    started = asyncio.get_running_loop().time()
    stopped = await stub.Stop(pb.StopRequest(task_id=task.id), metadata=meta, timeout=30)
    took_s = asyncio.get_running_loop().time() - started
    assert [t.state for t in stopped.tasks] == [pb.TASK_STATE_STOPPED]
    yield StoppedUnheard(stub, demo_person, task.id, decision.wait.id, to_payments, took_s)
    await to_payments.close()


async def a_late_yes_is_refused(unheard: StoppedUnheard) -> None:
    await expect_error(
        unheard.person.approvals.Decide(
            approvals.DecideRequest(
                approval_id=unheard.approval_id, decision=approvals.DECISION_YES
            ),
            metadata=unheard.person.meta,
        ),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="CANCELLED",
    )


@pytest.mark.parametrize("stopped_unheard", [1.0], indirect=True)
async def test_a_stop_payments_did_not_hear_is_finished_from_what_it_says_once_it_answers(
    stopped_unheard, webhook_app, log_tee
):
    unheard, stub, meta = stopped_unheard, stopped_unheard.stub, stopped_unheard.person.meta
    await a_late_yes_is_refused(unheard)  # approvals was told at once
    # Payments wasn't: the clean-up waits (retried every round, in vain).
    await asyncio.sleep(1.5)
    proposal = await _proposal(stub, meta, unheard.task_id)
    assert (proposal.state, proposal.approval_id) == (pb.STEP_STATE_RUNNING, unheard.approval_id)
    pending = [line for line in log_tee.lines if "endings.pending" in line]
    assert any(unheard.task_id in line and '"payments"' in line for line in pending)

    unheard.to_payments.thaw()
    proposal = await _ended_proposal(stub, meta, unheard.task_id)

    # The first try cancelled the approval, and its answer said so; the
    # retry's cancel cancels nothing more. The step still ends as what it
    # was: unanswered, nothing done (not "it may have run").
    assert proposal.state == pb.STEP_STATE_NOT_RUN, proposal.reason
    assert "stopped before the person answered" in proposal.reason
    assert proposal.approval_id == unheard.approval_id
    assert webhook_app.received == []
    task = (await stub.GetTask(pb.GetTaskRequest(task_id=unheard.task_id), metadata=meta)).task
    assert task.state == pb.TASK_STATE_STOPPED


@pytest.mark.parametrize("stopped_unheard", [15.0], indirect=True)
async def test_stop_answers_in_time_while_a_service_hangs(stopped_unheard, webhook_app):
    unheard, stub, meta = stopped_unheard, stopped_unheard.stub, stopped_unheard.person.meta

    # Inside the gateway's 5 s deadline, though payments' call waits 15 s.
    assert unheard.stop_took_s < TOLD_WITHIN_S + 1.5, f"Stop took {unheard.stop_took_s:.1f} s"
    await a_late_yes_is_refused(unheard)

    unheard.to_payments.thaw()  # the held cancel goes through; the telling ends
    proposal = await _ended_proposal(stub, meta, unheard.task_id)
    assert proposal.state == pb.STEP_STATE_NOT_RUN, proposal.reason
    assert webhook_app.received == []


async def _proposal(stub, meta, task_id: str) -> pb.Step:
    (step,) = [s for s in await steps_of(stub, meta, task_id) if s.tool == "propose_app_action"]
    return step


async def _ended_proposal(stub, meta, task_id: str) -> pb.Step:
    deadline = asyncio.get_running_loop().time() + 20
    while (step := await _proposal(stub, meta, task_id)).state == pb.STEP_STATE_RUNNING:
        assert asyncio.get_running_loop().time() < deadline, "the clean-up never finished"
        await asyncio.sleep(0.1)
    return step
