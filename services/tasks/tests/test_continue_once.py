"""One Continue per request: a Continue with a request_id, resent after a
lost answer or sent twice at once, starts one run and answers the task as
it is now; the same id with another text or task is refused; a hostile id
is bad input. Counted in the task's own record: its runs and the events
that moved it from an end back into the queue."""

import asyncio
import uuid

import grpc
import pytest

from nod.tasks.v1 import tasks_pb2 as pb
from nod.tasks.v1 import tasks_pb2_grpc
from nodtest.fault_proxy import Fault, GrpcFaultProxy
from nodtest.rpc import expect_error
from nodtest.storms import fast_reconnect_channel

from .model_server import tool_call
from .support import ended, wait_for

REUSED = grpc.StatusCode.ALREADY_EXISTS
TIMEOUT_S = 30
HOSTILE_IDS = (
    "nul\x00inside",
    "x" * 129,
    " leading-space",
    "tab\there",
    "card 4111 1111 1111 1111",
)


def ask() -> tuple:
    return tool_call("ask_person", {"question": "Which colour?"})


def waiting(task: pb.Task) -> bool:
    return task.state == pb.TASK_STATE_WAITING


def second_run_ended(task: pb.Task) -> bool:
    return task.run == 2 and ended(task)


def request_id() -> str:
    return f"continue-{uuid.uuid4().hex}"


async def a_stopped_task(stub, meta, model_server, text: str = "Paint the fence") -> pb.Task:
    """A task that asked a question and was stopped; its next run ends on
    the model's first answer."""
    model_server.script = [ask()]
    task = (await stub.StartTask(pb.StartTaskRequest(text=text), metadata=meta)).task
    await wait_for(stub, meta, task.id, waiting)
    await stub.Stop(pb.StopRequest(task_id=task.id), metadata=meta)
    return await wait_for(stub, meta, task.id, ended)


async def continues_of(db, task_id: str) -> int:
    """How often the task went from an end back into the queue."""
    found = await db.execute(
        "SELECT count(*) FROM tasks.events WHERE task_id = %s AND kind = 'task.queued'"
        " AND from_state IN ('done', 'failed', 'stopped', 'interrupted')",
        (task_id,),
    )
    row = await found.fetchone()
    return row[0]


def go_on(task_id: str, rid: str, text: str = "I checked. Continue.") -> pb.ContinueRequest:
    return pb.ContinueRequest(task_id=task_id, text=text, request_id=rid)


async def test_a_continue_resent_after_a_lost_answer_starts_one_run(
    tasks_served, model_server, as_person, db
):
    address, direct = await tasks_served(model_url=model_server.url)
    proxy = await GrpcFaultProxy.for_address(address)
    channel = fast_reconnect_channel(proxy.address)
    proxied = tasks_pb2_grpc.TasksServiceStub(channel)
    try:
        task = await a_stopped_task(direct, as_person, model_server)
        request = go_on(task.id, request_id())
        proxy.arm(Fault.LOSE_ANSWER)
        with pytest.raises(grpc.aio.AioRpcError) as lost:
            await proxied.Continue(request, metadata=as_person, timeout=5)
        assert lost.value.code() == grpc.StatusCode.UNAVAILABLE
        assert proxy.injected == {Fault.LOSE_ANSWER: 1}

        # The resend finds the run the first one started, whatever it is doing now.
        resent = (await proxied.Continue(request, metadata=as_person, timeout=TIMEOUT_S)).task
        assert resent.id == task.id and resent.run == 2
        second_run = await wait_for(direct, as_person, task.id, second_run_ended)

        # Even once that run has ended, the resend starts no other.
        late = (await proxied.Continue(request, metadata=as_person, timeout=TIMEOUT_S)).task
        assert (late.state, late.run) == (second_run.state, 2)
    finally:
        await channel.close()
        await proxy.close()
    assert await continues_of(db, task.id) == 1


async def test_concurrent_resends_start_one_run(tasks_with, model_server, as_person, db):
    stub = await tasks_with(model_url=model_server.url)
    task = await a_stopped_task(stub, as_person, model_server)
    request = go_on(task.id, request_id())
    replies = await asyncio.gather(
        *(stub.Continue(request, metadata=as_person, timeout=TIMEOUT_S) for _ in range(16))
    )
    assert {(reply.task.id, reply.task.run) for reply in replies} == {(task.id, 2)}
    await wait_for(stub, as_person, task.id, second_run_ended)
    assert await continues_of(db, task.id) == 1


async def test_a_request_id_reused_for_another_continue_is_refused(
    tasks_with, model_server, as_person, db
):
    stub = await tasks_with(model_url=model_server.url)
    task = await a_stopped_task(stub, as_person, model_server)
    other = await a_stopped_task(stub, as_person, model_server, text="Mow the lawn")
    rid = request_id()
    await stub.Continue(go_on(task.id, rid), metadata=as_person)
    for reused in (go_on(task.id, rid, "Something else."), go_on(other.id, rid)):
        error = await expect_error(
            stub.Continue(reused, metadata=as_person),
            REUSED,
            reason="REQUEST_ID_REUSED",
            field="request_id",
        )
        assert "Something else" not in error.message
    still = (await stub.GetTask(pb.GetTaskRequest(task_id=other.id), metadata=as_person)).task
    assert (still.state, still.run) == (pb.TASK_STATE_STOPPED, 1)
    await wait_for(stub, as_person, task.id, second_run_ended)
    assert await continues_of(db, task.id) == 1
    assert await continues_of(db, other.id) == 0


@pytest.mark.parametrize("hostile", HOSTILE_IDS, ids=range(len(HOSTILE_IDS)))
async def test_a_hostile_request_id_is_refused_naming_the_field(
    tasks_with, model_server, as_person, db, hostile
):
    stub = await tasks_with(model_url=model_server.url)
    task = await a_stopped_task(stub, as_person, model_server)
    error = await expect_error(
        stub.Continue(go_on(task.id, hostile), metadata=as_person),
        grpc.StatusCode.INVALID_ARGUMENT,
        field="request_id",
    )
    assert "4111" not in error.message
    still = (await stub.GetTask(pb.GetTaskRequest(task_id=task.id), metadata=as_person)).task
    assert (still.state, still.run) == (pb.TASK_STATE_STOPPED, 1)
    assert await continues_of(db, task.id) == 0


async def test_a_refused_continue_leaves_its_request_id_free(
    tasks_with, model_server, as_person, db
):
    stub = await tasks_with(model_url=model_server.url)
    model_server.script = [ask()]
    task = (await stub.StartTask(pb.StartTaskRequest(text="Wash up"), metadata=as_person)).task
    await wait_for(stub, as_person, task.id, waiting)
    rid = request_id()
    # Not ended yet: refused, and nothing of it is kept under the id.
    await expect_error(
        stub.Continue(go_on(task.id, rid), metadata=as_person),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="TASK_NOT_ENDED",
    )
    await stub.Stop(pb.StopRequest(task_id=task.id), metadata=as_person)
    await wait_for(stub, as_person, task.id, ended)
    continued = (await stub.Continue(go_on(task.id, rid), metadata=as_person)).task
    assert continued.run == 2
    await wait_for(stub, as_person, task.id, second_run_ended)
    assert await continues_of(db, task.id) == 1


async def test_request_ids_past_their_keep_are_pruned_and_newer_ones_still_work(
    tasks_served, model_server, as_person, person, db
):
    keep_s = 3600
    _address, stub = await tasks_served(
        model_url=model_server.url, request_ids_keep_s=keep_s, prune_interval_s=0.2, prune_batch=2
    )
    task = await a_stopped_task(stub, as_person, model_server)
    for _ in range(5):  # more than a batch: a round takes several
        await db.execute(
            "INSERT INTO tasks.continue_requests (owner, request_id, task_id, text, created_at)"
            " VALUES (%s, %s, %s, 'go on', now() - make_interval(secs => %s))",
            (person, request_id(), task.id, keep_s + 60),
        )
    request = go_on(task.id, request_id())
    assert (await stub.Continue(request, metadata=as_person, timeout=TIMEOUT_S)).task.run == 2

    async def kept() -> int:
        found = await db.execute(
            "SELECT count(*) FROM tasks.continue_requests WHERE owner = %s", (person,)
        )
        return (await found.fetchone())[0]

    for _ in range(600):
        if await kept() == 1:
            break
        await asyncio.sleep(0.1)
    assert await kept() == 1, "the request ids past their keep were not deleted"
    # The one inside its keep still does its work: its resend starts no run.
    await wait_for(stub, as_person, task.id, second_run_ended)
    resent = (await stub.Continue(request, metadata=as_person, timeout=TIMEOUT_S)).task
    assert resent.run == 2
    assert await continues_of(db, task.id) == 1
