"""G11: Stop ends the person's running, queued and waiting tasks at once;
the entry cut off mid-way ends UNCERTAIN; a code, pick or decision that
arrives later is refused and starts nothing; the shop and the app receive
nothing more."""

import asyncio

import grpc

from nod.approvals.v1 import approvals_pb2 as approvals
from nod.tasks.v1 import tasks_pb2 as pb
from nod_tasks.adapters.models.scripted import DEMO_TASKS
from nodtest.demo import shop_count, shop_wait_for_count
from nodtest.rpc import expect_error

from .support import (
    begin,
    one_time_code,
    steps_of,
    type_into_form,
    wait_for,
    waiting,
)


def has_step_running(tool: str):
    async def check(stub, meta, task_id):
        steps = await steps_of(stub, meta, task_id)
        return any(s.tool == tool and s.state == pb.STEP_STATE_RUNNING for s in steps)

    return check


async def test_stop_ends_every_live_task_and_late_answers_start_nothing(
    tasks_with, model_server, demo_person, shop_site, webhook_app
):
    model_server.plan_as_scripted(demo_person.context(""))
    stub = await tasks_with(model_url=model_server.url, max_running=1)
    meta = demo_person.meta

    waits_for_code = await begin(stub, demo_person, DEMO_TASKS["sign_in"])
    code_form = await wait_for(stub, meta, waits_for_code.id, waiting(pb.WAIT_KIND_PRIVATE_FORM))
    waits_for_yes = await begin(stub, demo_person, DEMO_TASKS["note"])
    decision = await wait_for(stub, meta, waits_for_yes.id, waiting(pb.WAIT_KIND_DECISION))

    shop_site.state.set_mode("login", "hold")
    mid_entry = await begin(stub, demo_person, DEMO_TASKS["sign_in"])
    await shop_wait_for_count(shop_site, "login", 2)  # its submission is held by the shop
    queued = await begin(stub, demo_person, DEMO_TASKS["sign_in"])
    assert (await wait_for(stub, meta, queued.id, lambda t: True)).state == pb.TASK_STATE_QUEUED
    ids = [waits_for_code.id, waits_for_yes.id, mid_entry.id, queued.id]

    started = asyncio.get_running_loop().time()
    stopping = asyncio.ensure_future(stub.Stop(pb.StopRequest(), metadata=meta))

    async def all_stopped():
        for task_id in ids:
            task = (await stub.GetTask(pb.GetTaskRequest(task_id=task_id), metadata=meta)).task
            if task.state != pb.TASK_STATE_STOPPED:
                return False
        return True

    while not await all_stopped():
        assert asyncio.get_running_loop().time() - started < 2.0, "not all STOPPED in 2 s"
        await asyncio.sleep(0.05)
    stopped = await stopping
    assert sorted(t.id for t in stopped.tasks) == sorted(ids)

    # The entry cut off mid-way may have reached the shop: UNCERTAIN, never redone.
    entry = [s for s in await steps_of(stub, meta, mid_entry.id) if s.tool == "enter_saved_login"]
    assert [s.state for s in entry] == [pb.STEP_STATE_UNCERTAIN]

    # Late answers are refused and start nothing.
    code = await type_into_form(demo_person, code_form, {"code": one_time_code()})
    await expect_error(
        stub.SubmitPrivateForm(
            pb.SubmitPrivateFormRequest(
                task_id=waits_for_code.id, form_id=code_form.wait.id, item_id=code
            ),
            metadata=meta,
        ),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="TASK_STOPPED",
    )
    await expect_error(
        stub.SubmitPrivateForm(
            pb.SubmitPrivateFormRequest(
                task_id=waits_for_code.id,
                form_id=code_form.wait.id,
                item_id=demo_person.login.id,
            ),
            metadata=meta,
        ),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="TASK_STOPPED",
    )
    await expect_error(
        demo_person.approvals.Decide(
            approvals.DecideRequest(approval_id=decision.wait.id, decision=approvals.DECISION_YES),
            metadata=meta,
        ),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="CANCELLED",
    )

    shop_site.state.release()
    await asyncio.sleep(1.0)
    assert shop_count(shop_site, "login") == 2
    assert shop_count(shop_site, "otp") == 0
    assert webhook_app.received == []
    for task_id in ids:
        task = (await stub.GetTask(pb.GetTaskRequest(task_id=task_id), metadata=meta)).task
        assert task.state == pb.TASK_STATE_STOPPED


async def test_stop_of_one_task_leaves_the_others(tasks_with, model_server, demo_person):
    model_server.plan_as_scripted(demo_person.context(""))
    stub = await tasks_with(model_url=model_server.url)
    meta = demo_person.meta
    first = await begin(stub, demo_person, DEMO_TASKS["note"])
    second = await begin(stub, demo_person, DEMO_TASKS["note"])
    for task in (first, second):
        await wait_for(stub, meta, task.id, waiting(pb.WAIT_KIND_DECISION))

    stopped = await stub.Stop(pb.StopRequest(task_id=first.id), metadata=meta)

    assert [t.id for t in stopped.tasks] == [first.id]
    other = await wait_for(stub, meta, second.id, waiting(pb.WAIT_KIND_DECISION))
    assert other.state == pb.TASK_STATE_WAITING
