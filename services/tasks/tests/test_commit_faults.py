"""Tasks under lost commits and lost answers: StartTask, Stop and Continue
through a link that loses answers and drops or delays requests, on a
database link that drops connections right after or right before a COMMIT,
delays commits and is cut. Each caller resends the same request after an
error, as a client does after a lost answer. The model is the local
stand-in, answering after a moment so that a task is live when stopped.

What must hold: a resent StartTask finds the task its request made (one per
request id); a resent Stop stops nothing twice; a resent Continue finds the
run it started and never starts another while that one is live; every task
ends, and none is left QUEUED, RUNNING or WAITING."""

import asyncio
import random
import uuid

import grpc
import pytest

from nod.tasks.v1 import tasks_pb2 as pb
from nod.tasks.v1 import tasks_pb2_grpc
from nod_tasks.wiring import build
from nodkit import service
from nodkit.client import NodRpcError, open_channel
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

from .conftest import tasks_settings
from .model_server import text
from .support import ended

pytestmark = pytest.mark.storm

# For each of StartTask, Stop and Continue, as for every state-changing call
# but the claim (make soak: NOD_SOAK_SCALE times as many).
INJECTIONS_PER_CALL = 200
CALLERS = 6
MODEL_THINKS_S = 0.3


@pytest.mark.timeout(300 * soak_scale())
async def test_a_storm_of_lost_commits_and_answers_starts_and_stops_each_task_once(
    tasks_migrated, service_token, peers, log_tee, model_server, person, as_person, db
):
    tally = StormTally("tasks.StartTask+Stop+Continue")

    async def slow_answer(_body):
        await asyncio.sleep(MODEL_THINKS_S)
        return text("Done.")

    model_server.otherwise = slow_answer
    to_database = await PostgresFaultProxy.for_url(tasks_migrated)
    settings = tasks_settings(
        to_database.url_for(tasks_migrated),
        service_token,
        peers,
        instance_id="tasks-commit-faults",
        model_url=model_server.url,
        db_call_timeout_s=5.0,
        sweep_interval_s=0.2,
    )
    running = await service.start(await build(settings), settings, listen="127.0.0.1:0")
    to_tasks = await GrpcFaultProxy.for_address(running.address)
    channel = fast_reconnect_channel(to_tasks.address)
    proxied = tasks_pb2_grpc.TasksServiceStub(channel)
    direct_channel = open_channel(running.address)
    direct = tasks_pb2_grpc.TasksServiceStub(direct_channel)
    rng = random.Random(20261205)
    faults = every_fault(to_database, to_tasks)
    request_ids: set[str] = set()
    continued: set[str] = set()

    async def answered(call, what: str):
        try:
            return await until_answered(call, tally)
        except grpc.aio.AioRpcError as error:
            tally.wrong_answers.append(f"{what}: {error.code().name} {error.details()}")
            return None

    async def until_ended(task_id: str) -> None:
        """Reads the task (resending a read the faults cut) until it has ended."""
        read = pb.GetTaskRequest(task_id=task_id)
        for _ in range(600):
            got = await answered(lambda: direct.GetTask(read, metadata=as_person), "GetTask")
            if got is None or ended(got.task):
                return
            await asyncio.sleep(0.05)
        tally.wrong_answers.append(f"{task_id} never ended")

    async def continue_once(task_id: str) -> None:
        # One request id for the Continue and all its resends, as the task
        # page's form carries one: without it, a resend that finds the first
        # one's run ended already rightly starts another.
        again = pb.ContinueRequest(
            task_id=task_id, text="I checked. Continue.", request_id=f"continue-{task_id}"
        )
        resent = False
        while True:
            try:
                await proxied.Continue(again, metadata=as_person, timeout=10)
            except grpc.aio.AioRpcError as error:
                refused = NodRpcError(error)
                if refused.may_have_happened:
                    resent = True
                    tally.resends += 1
                    continue
                # A resend that finds the first attempt's run begun (or
                # beginning under it: RACED) is told so, never run twice.
                if not (resent and refused.reason in {"TASK_NOT_ENDED", "RACED"}):
                    tally.wrong_answers.append(f"Continue: {refused.code.name} {refused.reason}")
                    return
            continued.add(task_id)
            return

    async def one_operation() -> None:
        request_id = f"request-{uuid.uuid4().hex[:12]}"
        request_ids.add(request_id)
        start = pb.StartTaskRequest(text="Say hello.", request_id=request_id)
        arm_at_random(rng, faults, delay_s=0.2)
        started = await answered(
            lambda: proxied.StartTask(start, metadata=as_person, timeout=10), "StartTask"
        )
        if started is None:
            return
        task_id = started.task.id
        stop = pb.StopRequest(task_id=task_id)
        arm_at_random(rng, faults, delay_s=0.2)
        if await answered(lambda: proxied.Stop(stop, metadata=as_person, timeout=10), "Stop"):
            await until_ended(task_id)
            arm_at_random(rng, faults, delay_s=0.2)
            await continue_once(task_id)

    target = 3 * INJECTIONS_PER_CALL * soak_scale()
    proxies = (to_database, to_tasks)
    try:
        elapsed = await run_storm(target, CALLERS, proxies, one_operation, tally)

        async def all_ended() -> bool:
            found = await db.execute(
                "SELECT count(*) FROM tasks.tasks WHERE owner = %s"
                " AND state IN ('queued', 'running', 'waiting')",
                (person,),
            )
            row = await found.fetchone()
            return row is not None and row[0] == 0

        try:
            await poll(all_ended, timeout_s=60, what="every task to end")
        except AssertionError:
            live = await db.execute(
                "SELECT t.state, t.runner_instance, t.run, t.steps, t.updated_at,"
                " (SELECT array_agg(e.kind || ':' || coalesce(e.from_state, '-') || '>' || e.state"
                " ORDER BY e.number) FROM tasks.events e WHERE e.task_id = t.id)"
                " FROM tasks.tasks t WHERE owner = %s"
                " AND state IN ('queued', 'running', 'waiting')",
                (person,),
            )
            raise AssertionError(f"still live: {await live.fetchall()}") from None
    finally:
        await channel.close()
        await direct_channel.close()
        await to_tasks.close()
        await running.stop()
        await to_database.close()
        await db.execute(
            "UPDATE tasks.tasks SET state = 'stopped', runner_instance = NULL, wait = NULL"
            " WHERE owner = %s AND state IN ('queued', 'running', 'waiting')",
            (person,),
        )

    found = await db.execute(
        "SELECT t.id::text, t.request_id, t.state, t.run,"
        " count(e.*) FILTER (WHERE e.state = 'stopped' AND e.from_state <> 'stopped')"
        " FROM tasks.tasks t LEFT JOIN tasks.events e ON e.task_id = t.id"
        " WHERE t.owner = %s GROUP BY t.id",
        (person,),
    )
    rows = await found.fetchall()
    tally.duplicates = len(rows) - len({request_id for _, request_id, _, _, _ in rows})
    tally.running_left = sum(
        1 for _, _, state, _, _ in rows if state in ("queued", "running", "waiting")
    )
    tally.report(*proxies)
    print(f"[{tally.name}] {elapsed:.1f} s, continued={len(continued)}")
    assert tally.wrong_answers == []
    assert tally.duplicates == 0
    assert {request_id for _, request_id, _, _, _ in rows} == request_ids
    assert tally.running_left == 0
    for task_id, request_id, _state, run, stops in rows:
        # One Stop, and one Continue (a second run) at most, however often resent.
        assert stops <= 1, f"{request_id}: stopped {stops} times"
        assert run == (2 if task_id in continued else 1), f"{request_id}: {run} runs"
