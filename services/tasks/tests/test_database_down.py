"""The tasks service while its database is stopped or frozen mid-flow (a
task waiting for the person's yes): no call outlives its deadline (plus a
second) or the service's own limit, health turns NOT_SERVING and comes back
by itself, and nothing runs without a committed record: a task started
during the outage is never run (the model is asked nothing for it) and is
not there afterwards; the waiting task can be stopped once the database
answers again."""

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from nod.tasks.v1 import tasks_pb2 as pb
from nod.tasks.v1 import tasks_pb2_grpc
from nod_tasks.adapters.models.scripted import DEMO_TASKS
from nod_tasks.wiring import build
from nodkit import service
from nodkit.client import open_channel
from nodtest.fault_proxy import PostgresFaultProxy
from nodtest.outage import failing_within, wait_for_health

from .conftest import tasks_settings
from .support import begin, wait_for, waiting

CALL_LIMIT_S = 2.0
DEADLINE_S = 1.0
UNKNOWN_OUTCOME = (grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNAVAILABLE)


async def health_of(address: str) -> int:
    async with open_channel(address) as channel:
        reply = await health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(), timeout=2
        )
        return reply.status


SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


async def a_task_through_an_outage(
    tasks_migrated, service_token, peers, model_server, demo_person, db, name, outage
) -> None:
    proxy = await PostgresFaultProxy.for_url(tasks_migrated)
    settings = tasks_settings(
        proxy.url_for(tasks_migrated),
        service_token,
        peers,
        instance_id=name,
        model_url=model_server.url,
        db_call_timeout_s=CALL_LIMIT_S,
        health_probe_s=0.3,
        sweep_interval_s=0.2,
    )
    running = await service.start(await build(settings), settings, listen="127.0.0.1:0")
    channel = open_channel(running.address)
    stub = tasks_pb2_grpc.TasksServiceStub(channel)
    meta = demo_person.meta
    start, end = outage(proxy)
    try:
        model_server.plan_as_scripted(demo_person.context(""))
        task = await begin(stub, demo_person, DEMO_TASKS["note"])
        await wait_for(stub, meta, task.id, waiting(pb.WAIT_KIND_DECISION))
        await wait_for_health(lambda: health_of(running.address), SERVING)
        asked = len(model_server.requests)

        start()
        code, _, _ = await failing_within(
            stub.Stop(pb.StopRequest(task_id=task.id), metadata=meta, timeout=DEADLINE_S),
            DEADLINE_S + 1,
        )
        assert code in UNKNOWN_OUTCOME
        # Without a deadline of its own a call ends within the service's limit
        # (plus the driver's bounded clean-up of a cut-off statement).
        another = pb.StartTaskRequest(text=DEMO_TASKS["note"])
        code, _, _ = await failing_within(stub.StartTask(another, metadata=meta), CALL_LIMIT_S + 15)
        assert code in UNKNOWN_OUTCOME
        await wait_for_health(lambda: health_of(running.address), NOT_SERVING)

        end()
        await wait_for_health(lambda: health_of(running.address), SERVING)
        stopped = await stub.Stop(pb.StopRequest(task_id=task.id), metadata=meta, timeout=30)
        assert [t.state for t in stopped.tasks] == [pb.TASK_STATE_STOPPED]
        found = await db.execute(
            "SELECT id::text FROM tasks.tasks WHERE owner = %s", (demo_person.name,)
        )
        assert [row[0] for row in await found.fetchall()] == [task.id]
        assert len(model_server.requests) == asked, "the model was asked during the outage"
    finally:
        end()
        await channel.close()
        await running.stop()
        await proxy.close()
        # A task left live would be picked up by the next test's service.
        await db.execute(
            "UPDATE tasks.tasks SET state = 'stopped', runner_instance = NULL, wait = NULL"
            " WHERE owner = %s AND state IN ('queued', 'running', 'waiting')",
            (demo_person.name,),
        )


async def test_a_frozen_database_hangs_no_call_and_runs_nothing(
    tasks_migrated, service_token, peers, log_tee, model_server, demo_person, db
):
    await a_task_through_an_outage(
        tasks_migrated,
        service_token,
        peers,
        model_server,
        demo_person,
        db,
        "tasks-frozen-db",
        lambda proxy: (proxy.freeze, proxy.thaw),
    )


async def test_a_stopped_database_fails_calls_fast_and_runs_nothing(
    tasks_migrated, service_token, peers, log_tee, model_server, demo_person, db
):
    await a_task_through_an_outage(
        tasks_migrated,
        service_token,
        peers,
        model_server,
        demo_person,
        db,
        "tasks-stopped-db",
        lambda proxy: (proxy.stop, proxy.resume),
    )
