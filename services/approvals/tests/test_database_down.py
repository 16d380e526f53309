"""Approvals while its database is stopped or frozen mid-flow (between the
proposal and the person's yes): no call outlives its deadline (plus a
second), health turns NOT_SERVING and comes back by itself, and nothing is
sent without a committed record: the yes cut off by the outage sends
nothing; the yes given once the database answers again sends once."""

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from nod.approvals.v1 import approvals_pb2 as pb
from nodkit.client import open_channel
from nodtest.fault_proxy import PostgresFaultProxy
from nodtest.outage import failing_within, wait_for_health

from .support import approvals_settings, connect_webhook, get_approval, propose, start_approvals

CALL_LIMIT_S = 2.0
DEADLINE_S = 1.0


async def health_of(address: str) -> int:
    async with open_channel(address) as channel:
        reply = await health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(), timeout=2
        )
        return reply.status


SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


async def approvals_behind(proxy, approvals_migrated, service_token, vault_key, name):
    settings = approvals_settings(
        proxy.url_for(approvals_migrated),
        service_token,
        vault_key,
        instance_id=name,
        db_call_timeout_s=CALL_LIMIT_S,
        health_probe_s=0.3,
    )
    return await start_approvals(settings)


async def a_yes_during_the_outage_sends_nothing(server, as_person, webhook_app, outage):
    account = await connect_webhook(server.stub, as_person, webhook_app.hook_url())
    approval = await propose(server.stub, as_person, account, {"ref": "outage"})
    await wait_for_health(lambda: health_of(server.address), SERVING)
    yes = pb.DecideRequest(approval_id=approval.id, decision=pb.DECISION_YES)

    outage.start()
    code, _, _ = await failing_within(
        server.stub.Decide(yes, metadata=as_person, timeout=DEADLINE_S), DEADLINE_S + 1
    )
    assert code in (grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNAVAILABLE)
    # Without a deadline of its own a call ends within the service's limit
    # (plus the driver's bounded clean-up of a cut-off statement).
    code, _, _ = await failing_within(
        server.stub.Decide(yes, metadata=as_person), CALL_LIMIT_S + 15
    )
    assert code in (grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNAVAILABLE)
    await wait_for_health(lambda: health_of(server.address), NOT_SERVING)
    assert webhook_app.state.received == []

    outage.end()
    await wait_for_health(lambda: health_of(server.address), SERVING)
    current = await get_approval(server.stub, as_person, approval.id)
    assert current.state == pb.APPROVAL_STATE_PENDING, "a yes was recorded during the outage"
    assert webhook_app.state.received == []
    decided = await server.stub.Decide(yes, metadata=as_person, timeout=15)
    assert decided.approval.execution_state == pb.EXECUTION_STATE_DONE
    assert [entry["body"]["ref"] for entry in webhook_app.state.received] == ["outage"]


class Frozen:
    def __init__(self, proxy: PostgresFaultProxy) -> None:
        self.start, self.end = proxy.freeze, proxy.thaw


class Stopped:
    def __init__(self, proxy: PostgresFaultProxy) -> None:
        self.start, self.end = proxy.stop, proxy.resume


async def test_a_frozen_database_hangs_no_call_and_sends_nothing(
    approvals_migrated, service_token, vault_key, log_tee, as_person, webhook_app
):
    proxy = await PostgresFaultProxy.for_url(approvals_migrated)
    server = await approvals_behind(
        proxy, approvals_migrated, service_token, vault_key, "approvals-frozen-db"
    )
    try:
        await a_yes_during_the_outage_sends_nothing(server, as_person, webhook_app, Frozen(proxy))
    finally:
        proxy.thaw()
        await server.stop()
        await proxy.close()


async def test_a_stopped_database_fails_calls_fast_and_sends_nothing(
    approvals_migrated, service_token, vault_key, log_tee, as_person, webhook_app
):
    proxy = await PostgresFaultProxy.for_url(approvals_migrated)
    server = await approvals_behind(
        proxy, approvals_migrated, service_token, vault_key, "approvals-stopped-db"
    )
    try:
        await a_yes_during_the_outage_sends_nothing(server, as_person, webhook_app, Stopped(proxy))
    finally:
        proxy.resume()
        await server.stop()
        await proxy.close()
