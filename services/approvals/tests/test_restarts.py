"""G12: a restart turns this instance's running executions UNCERTAIN and
sends nothing again; another live instance's executions are left alone; a
dead instance's are swept once its lease expires."""

import signal

import grpc

from nod.approvals.v1 import approvals_pb2 as pb
from nodtest.processes import run_migrate
from nodtest.rpc import expect_error

from .support import (
    CANARY_TOKEN,
    connect_webhook,
    decide,
    get_approval,
    poll_approval,
    propose,
)

RUNNING = pb.EXECUTION_STATE_RUNNING
UNCERTAIN = pb.EXECUTION_STATE_UNCERTAIN


async def start_held_execution(stub, meta, webhook_app) -> pb.Approval:
    """A yes whose request the app holds open; the caller gives up waiting."""
    webhook_app.state.set_mode("hang")
    account = await connect_webhook(stub, meta, webhook_app.hook_url())
    approval = await propose(stub, meta, account, {"ref": "held"})
    await expect_error(
        decide(stub, meta, approval.id, timeout=1), grpc.StatusCode.DEADLINE_EXCEEDED
    )
    await webhook_app.state.wait_for_count(1)
    running = await get_approval(stub, meta, approval.id)
    assert running.execution_state == RUNNING
    return running


async def test_sigkill_while_sending_ends_uncertain_after_restart(
    approvals_processes, as_person, webhook_app
):
    server = approvals_processes("approvals-killed", webhook_timeout_s=60)
    run_migrate("nod_approvals", server.process.env)  # already at head: a no-op
    await server.start()
    approval = await start_held_execution(server.stub, as_person, webhook_app)

    server.kill()
    await server.start()

    after = await get_approval(server.stub, as_person, approval.id)
    assert after.execution_state == UNCERTAIN
    assert "restarted while sending" in after.reason and "check the app" in after.reason
    webhook_app.state.release()
    again = await decide(server.stub, as_person, approval.id)
    assert again.execution_state == UNCERTAIN
    assert len(webhook_app.state.received) == 1
    assert CANARY_TOKEN not in server.process.log_text()


async def test_sigterm_while_sending_ends_uncertain_before_the_process_exits(
    approvals_processes, as_person, webhook_app
):
    server = approvals_processes("approvals-terminated", webhook_timeout_s=60)
    server.process.env["NOD_SHUTDOWN_GRACE_S"] = "0.3"
    await server.start()
    approval = await start_held_execution(server.stub, as_person, webhook_app)

    assert server.process.kill(signal.SIGTERM) == 0
    await server.start()

    after = await get_approval(server.stub, as_person, approval.id)
    assert after.execution_state == UNCERTAIN
    # Recorded by the stopping process itself, not left for the next boot.
    assert "shut down while sending" in after.reason
    assert len(webhook_app.state.received) == 1


async def test_one_instance_restarting_leaves_the_others_execution_alone_and_a_dead_one_is_swept(
    approvals_processes, as_person, webhook_app, db
):
    timings = {"lease_ttl_s": 1.5, "sweep_interval_s": 0.2, "webhook_timeout_s": 60}
    first = approvals_processes("approvals-first", **timings)
    second = approvals_processes("approvals-second", **timings)
    await first.start()
    await second.start()
    approval = await start_held_execution(first.stub, as_person, webhook_app)
    first_lease = await lease_expiry(db, "approvals-first")

    second.kill()
    await second.start()  # its boot reconcile and first sweep have run
    # Past the lease the first instance had then: only its renewals keep it alive.
    await wait_for_database_time(db, first_lease, margin_s=0.5)

    still = await get_approval(second.stub, as_person, approval.id)
    assert still.execution_state == RUNNING
    first.kill()  # and never restarted: its lease runs out
    swept = await poll_approval(
        second.stub, as_person, approval.id, lambda a: a.execution_state != RUNNING
    )
    assert swept.execution_state == UNCERTAIN
    assert "stopped renewing its lease" in swept.reason
    assert len(webhook_app.state.received) == 1


async def test_a_graceful_stop_mid_send_ends_uncertain(approvals_factory, as_person, webhook_app):
    server = await approvals_factory("approvals-stopping", webhook_timeout_s=60)
    approval = await start_held_execution(server.stub, as_person, webhook_app)

    await server.stop()
    restarted = await approvals_factory("approvals-stopping")

    after = await get_approval(restarted.stub, as_person, approval.id)
    assert after.execution_state == UNCERTAIN
    assert "shut down while sending" in after.reason
    assert len(webhook_app.state.received) == 1


async def lease_expiry(db, instance_id: str):
    cursor = await db.execute(
        "SELECT lease_expires_at FROM approvals.instance_leases WHERE instance_id = %s",
        (instance_id,),
    )
    return (await cursor.fetchone())[0]


async def wait_for_database_time(db, moment, *, margin_s: float) -> None:
    cursor = await db.execute(
        "SELECT pg_sleep(greatest(0, extract(epoch FROM %s - now()) + %s))", (moment, margin_s)
    )
    await cursor.fetchone()
