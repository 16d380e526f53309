"""Approvals under lost commits and lost answers (G7, G12): Propose and
Decide through a link that loses answers and drops or delays requests, on a
database link that drops connections right after or right before a COMMIT,
delays commits and is cut. Each caller resends the same request after an
error, as a client does after a lost answer.

What must hold: a resent Propose finds the approval it made (one approval
per request id), a resent yes finds the decision made and sends nothing,
the demo webhook app receives each approval's action at most once, an
action is only received for an execution on record (DONE, or UNCERTAIN
when its end was lost), and no execution stays RUNNING."""

import random
from collections import Counter

import grpc
import pytest

from nod.approvals.v1 import approvals_pb2 as pb
from nod.approvals.v1 import approvals_pb2_grpc
from nodtest.browser import poll
from nodtest.fault_proxy import GrpcFaultProxy, PostgresFaultProxy
from nodtest.soak_report import soak_scale
from nodtest.storms import (
    StormTally,
    arm_at_random,
    every_fault,
    fast_reconnect_channel,
    run_storm,
    until_answered,
)

from .support import approvals_settings, connect_webhook, proposal, start_approvals

pytestmark = pytest.mark.storm

# Per call covered (Propose, Decide).
INJECTIONS_PER_CALL = 200
CALLERS = 6


@pytest.mark.timeout(300 * soak_scale())
async def test_a_storm_of_lost_commits_and_answers_sends_each_action_at_most_once(
    approvals_migrated, service_token, vault_key, log_tee, as_person, webhook_app, db
):
    tally = StormTally("approvals.Propose+Decide")
    to_database = await PostgresFaultProxy.for_url(approvals_migrated)
    settings = approvals_settings(
        to_database.url_for(approvals_migrated),
        service_token,
        vault_key,
        instance_id="approvals-commit-faults",
        db_call_timeout_s=5.0,
    )
    server = await start_approvals(settings)
    to_approvals = await GrpcFaultProxy.for_address(server.address)
    channel = fast_reconnect_channel(to_approvals.address)
    proxied = approvals_pb2_grpc.ApprovalsServiceStub(channel)
    account = await connect_webhook(server.stub, as_person, webhook_app.hook_url())
    rng = random.Random(20261202)
    faults = every_fault(to_database, to_approvals)
    refs = iter(range(10**9))
    approval_of_ref: dict[int, str] = {}

    async def one_operation() -> None:
        ref = next(refs)
        request = proposal(account, {"ref": ref})
        arm_at_random(rng, faults, delay_s=0.2)
        try:
            proposed = await until_answered(
                lambda: proxied.Propose(request, metadata=as_person, timeout=10), tally
            )
            approval_of_ref[ref] = proposed.approval.id
            yes = pb.DecideRequest(approval_id=proposed.approval.id, decision=pb.DECISION_YES)
            arm_at_random(rng, faults, delay_s=0.2)
            decided = await until_answered(
                lambda: proxied.Decide(yes, metadata=as_person, timeout=15), tally
            )
        except grpc.aio.AioRpcError as error:
            tally.wrong_answers.append(f"ref {ref}: {error.code().name} {error.details()}")
            return
        if decided.approval.state != pb.APPROVAL_STATE_APPROVED:
            tally.wrong_answers.append(f"ref {ref}: the yes was answered {decided.approval}")

    target = 2 * INJECTIONS_PER_CALL * soak_scale()
    proxies = (to_database, to_approvals)
    try:
        elapsed = await run_storm(target, CALLERS, proxies, one_operation, tally)

        async def nothing_running() -> bool:
            found = await db.execute(
                "SELECT count(*) FROM approvals.executions e"
                " JOIN approvals.approvals a ON a.id = e.approval_id"
                " WHERE a.account_id = %s AND e.state = 'running'",
                (account.id,),
            )
            row = await found.fetchone()
            return row is not None and row[0] == 0

        # A yes whose execution row committed unseen is the sweeper's (G12).
        await poll(nothing_running, timeout_s=30, what="the sweeper to end lost executions")
    finally:
        await channel.close()
        await to_approvals.close()
        await server.stop()
        await to_database.close()

    found = await db.execute(
        "SELECT a.id::text, a.request_id, e.state FROM approvals.approvals a"
        " LEFT JOIN approvals.executions e ON e.approval_id = a.id WHERE a.account_id = %s",
        (account.id,),
    )
    rows = await found.fetchall()
    execution_of = {approval_id: state for approval_id, _, state in rows}
    sends = Counter(entry["body"]["ref"] for entry in webhook_app.state.received)
    tally.duplicates = sum(n - 1 for n in sends.values() if n > 1)
    tally.uncertain = sum(1 for state in execution_of.values() if state == "uncertain")
    tally.running_left = sum(1 for state in execution_of.values() if state == "running")
    tally.report(*proxies)
    print(f"[{tally.name}] {elapsed:.1f} s, sends={sum(sends.values())}")
    assert tally.wrong_answers == []
    assert tally.duplicates == 0
    # One approval per request id, whatever was resent.
    assert len(rows) == len({request_id for _, request_id, _ in rows}) == tally.operations
    for ref, approval_id in approval_of_ref.items():
        state = execution_of[approval_id]
        if state == "done":
            assert sends[ref] == 1, f"ref {ref}: DONE but received {sends[ref]} times"
        elif sends[ref]:
            # Sent, and its end lost: only ever UNCERTAIN, never "not run".
            assert state == "uncertain", f"ref {ref}: received, but its execution is {state}"
