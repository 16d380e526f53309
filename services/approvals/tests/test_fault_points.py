"""G7 and G12 at every fault point of an app action's yes and execution: the
approvals service runs as a process armed with NOD_FAULTS, the person says
yes, the fault fires (a SIGKILL, an unexpected error, a hang the caller's
deadline ends for the caller). A hang inside the execution is ended by the
execution's own deadline (NOD_APPROVALS_EXECUTION_DEADLINE_S, short here),
or around the send by the connector's budget, with no restart: the
execution ends NOT_RUN or UNCERTAIN while the process still runs. Restarted
without faults, the person resends the yes (its
answer was lost) and says yes once more: the demo app received the action
at most once, and the execution is DONE only where the send completed and
was recorded; anywhere else it ends NOT_RUN (nothing had left) or UNCERTAIN,
never RUNNING after the boot reconcile, and is never sent again."""

import asyncio
import signal
import uuid
from dataclasses import dataclass

import grpc
import pytest

from nod.approvals.v1 import approvals_pb2 as pb
from nodtest import fault_cases
from nodtest.processes import wait_until_serving

from .support import (
    ApprovalsProcess,
    connect_webhook,
    decide,
    get_approval,
    poll_approval,
    propose,
)

pytestmark = pytest.mark.fault_points

DONE = pb.EXECUTION_STATE_DONE
NOT_RUN = pb.EXECUTION_STATE_NOT_RUN
UNCERTAIN = pb.EXECUTION_STATE_UNCERTAIN
RUNNING = pb.EXECUTION_STATE_RUNNING
# The caller's patience with a yes that hangs; a yes that runs answers well within it.
HUNG_CALL_S = 1.5
CALL_S = 15.0
WEBHOOK_BUDGET_S = 2.0
# The execution's whole deadline here: past the connector's budget; and how
# long after it a busy machine may take to record the end.
EXECUTION_DEADLINE_S = 5.0
ENDED_WITHIN_S = EXECUTION_DEADLINE_S + 30.0
START_S = 120.0


@dataclass(frozen=True)
class Expected:
    """What the world sees once the fault fired and the service restarted."""

    sent: int
    state: int


# What each point's fault leaves. A kill cuts the execution off where it
# was: the boot reconcile ends it UNCERTAIN. An error, and a hang its
# deadline cuts off, let the executor end it itself: NOT_RUN before
# sending, UNCERTAIN once sending began.
EXPECTED = {
    ("approvals.decision_committed", "kill"): Expected(0, UNCERTAIN),
    ("approvals.decision_committed", "raise"): Expected(0, NOT_RUN),
    ("approvals.decision_committed", "hang"): Expected(0, NOT_RUN),
    ("approvals.execution_running", "kill"): Expected(0, UNCERTAIN),
    ("approvals.execution_running", "raise"): Expected(0, NOT_RUN),
    ("approvals.execution_running", "hang"): Expected(0, NOT_RUN),
    ("approvals.account_rechecked", "kill"): Expected(0, UNCERTAIN),
    ("approvals.account_rechecked", "raise"): Expected(0, NOT_RUN),
    ("approvals.account_rechecked", "hang"): Expected(0, NOT_RUN),
    ("approvals.request_sent", "kill"): Expected(1, UNCERTAIN),
    ("approvals.request_sent", "raise"): Expected(1, UNCERTAIN),
    ("approvals.request_sent", "hang"): Expected(1, UNCERTAIN),
    ("approvals.answer_received", "kill"): Expected(1, UNCERTAIN),
    ("approvals.answer_received", "raise"): Expected(1, UNCERTAIN),
    ("approvals.answer_received", "hang"): Expected(1, UNCERTAIN),
    ("approvals.end_recorded", "kill"): Expected(1, DONE),
    ("approvals.end_recorded", "raise"): Expected(1, DONE),
    ("approvals.end_recorded", "hang"): Expected(1, DONE),
}
# The hangs the execution's own deadline ends (the others: the connector's
# budget, or the execution had ended already).
ENDED_BY_THE_DEADLINE = {
    "approvals.decision_committed",
    "approvals.execution_running",
    "approvals.account_rechecked",
    "approvals.answer_received",
}


async def start(server: ApprovalsProcess) -> None:
    """Started and SERVING; a machine busy with other runs may take a while."""
    server.process.start()
    await wait_until_serving(server.address, timeout_s=START_S)


def fired(server: ApprovalsProcess, point: str, action: str) -> bool:
    return any(
        "faults.fired" in line and point in line and action in line
        for line in server.process.log_text().splitlines()
    )


async def yes_meets_the_fault(server: ApprovalsProcess, meta, approval_id: str, action: str):
    """The person's yes; the error the caller got, if any."""
    timeout = HUNG_CALL_S if action == "hang" else CALL_S
    try:
        await decide(server.stub, meta, approval_id, timeout=timeout)
    except grpc.aio.AioRpcError as error:
        return error.code()
    return None


async def stop_after_the_fault(server: ApprovalsProcess, action: str) -> None:
    """A kill's process is gone already; any other stops as deployed (SIGTERM),
    which a hung call inside must not keep from ending."""
    popen = server.process.process
    assert popen is not None
    if action == "kill":
        returncode = await asyncio.to_thread(popen.wait, 10)
        assert returncode == -signal.SIGKILL
    else:
        assert popen.poll() is None, "an error or a hang must not end the process"
        assert await asyncio.to_thread(server.process.kill, signal.SIGTERM, 15) == 0


@pytest.mark.parametrize(("point", "action"), fault_cases.cases(point for point, _ in EXPECTED))
async def test_a_yes_cut_off_at_a_fault_point_is_sent_at_most_once(
    approvals_processes, as_person, webhook_app, point, action
):
    expected = EXPECTED[(point, action)]
    server = approvals_processes(
        f"approvals-fault-{uuid.uuid4().hex[:8]}",
        webhook_timeout_s=WEBHOOK_BUDGET_S,
        execution_deadline_s=EXECUTION_DEADLINE_S,
    )
    server.process.env["NOD_FAULTS"] = f"{point}={action}"
    server.process.env["NOD_SHUTDOWN_GRACE_S"] = "0.3"
    await start(server)
    account = await connect_webhook(server.stub, as_person, webhook_app.hook_url())
    approval = await propose(server.stub, as_person, account, {"ref": point})

    error = await yes_meets_the_fault(server, as_person, approval.id, action)

    assert fired(server, point, action), server.process.log_text()[-2000:]
    if action == "hang":
        assert error == grpc.StatusCode.DEADLINE_EXCEEDED
    elif action == "kill":
        assert error == grpc.StatusCode.UNAVAILABLE
    if action == "hang":
        # Ended in the running process, by the execution's deadline or the
        # connector's budget: nothing waits for a restart.
        ended = await poll_approval(
            server.stub,
            as_person,
            approval.id,
            lambda a: a.execution_state != RUNNING,
            timeout_s=ENDED_WITHIN_S,
        )
        assert ended.execution_state == expected.state, ended
        if point in ENDED_BY_THE_DEADLINE:
            assert f"took longer than {EXECUTION_DEADLINE_S:g} s" in ended.reason, ended
    await stop_after_the_fault(server, action)

    del server.process.env["NOD_FAULTS"]
    await start(server)
    after = await get_approval(server.stub, as_person, approval.id)
    assert after.state == pb.APPROVAL_STATE_APPROVED
    assert after.execution_state == expected.state, after
    resent = await decide(server.stub, as_person, approval.id)
    second = await decide(server.stub, as_person, approval.id)
    assert resent.execution_state == second.execution_state == expected.state

    # Whatever had left did so once; nothing left after the restart.
    await asyncio.sleep(0.2)
    assert len(webhook_app.state.received) == expected.sent
    final = await get_approval(server.stub, as_person, approval.id)
    assert final.execution_state == expected.state
