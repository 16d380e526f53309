"""G12 with real processes: the tasks service killed with SIGKILL mid-task
comes back with the task INTERRUPTED and its cut-off step UNCERTAIN;
Continue goes on with a new step and never repeats the interrupted one. Of
two replicas, killing one leaves the other's tasks running."""

import asyncio

from nod.tasks.v1 import tasks_pb2 as pb
from nod_tasks.adapters.models.scripted import DEMO_TASKS
from nodtest.demo import shop_count, shop_wait_for_count

from .model_server import text
from .support import begin, ended, steps_of, wait_for


async def entry_running(stub, meta, task_id):
    steps = await steps_of(stub, meta, task_id)
    return any(s.tool == "enter_saved_login" and s.state == pb.STEP_STATE_RUNNING for s in steps)


async def test_sigkill_mid_task_then_continue_never_repeats_the_step(
    tasks_process, model_server, demo_person, shop_site
):
    model_server.plan_as_scripted(demo_person.context(""))
    meta = demo_person.meta
    shop_site.state.set_mode("login", "hold")
    process, stub, address = await tasks_process("tasks-restart")
    task = await begin(stub, demo_person, DEMO_TASKS["sign_in"])
    await shop_wait_for_count(shop_site, "login", 1)

    process.kill()
    shop_site.state.release()
    _, stub, _ = await tasks_process("tasks-restart", address)

    interrupted = await wait_for(stub, meta, task.id, ended)
    assert interrupted.state == pb.TASK_STATE_INTERRUPTED
    assert "nod restarted while this task was running" in interrupted.message
    assert "check what happened, or say continue" in interrupted.message
    steps = await steps_of(stub, meta, task.id)
    assert [(s.tool, s.state) for s in steps] == [
        ("navigate", pb.STEP_STATE_DONE),
        ("enter_saved_login", pb.STEP_STATE_UNCERTAIN),
    ]

    await stub.Continue(pb.ContinueRequest(task_id=task.id, text="I checked; go on"), metadata=meta)
    done = await wait_for(stub, meta, task.id, lambda t: t.run == 2 and ended(t))
    steps = await steps_of(stub, meta, task.id)
    assert [s.tool for s in steps] == ["navigate", "enter_saved_login", "finish"]
    assert done.state == pb.TASK_STATE_DONE
    assert shop_count(shop_site, "login") == 1


async def test_killing_one_replica_leaves_the_other_replicas_tasks_running(
    tasks_process, model_server, demo_person
):
    async def thinking_for_long():
        await asyncio.sleep(60)
        return text("too late")

    # Each task is RUNNING, its model request out, on its own replica.
    model_server.script = [thinking_for_long, thinking_for_long]
    meta = demo_person.meta
    settings = {"max_running": 1, "lease_ttl_s": 3, "sweep_interval_s": 0.5}
    first, first_stub, _ = await tasks_process("tasks-replica-a", **settings)
    on_first = await begin(first_stub, demo_person, "Think about it")
    await wait_for(first_stub, meta, on_first.id, lambda t: len(model_server.requests) == 1)
    _, second_stub, _ = await tasks_process("tasks-replica-b", **settings)
    on_second = await begin(second_stub, demo_person, "Think about this too")
    await wait_for(second_stub, meta, on_second.id, lambda t: len(model_server.requests) == 2)

    first.kill()

    swept = await wait_for(second_stub, meta, on_first.id, ended, timeout_s=20)
    assert swept.state == pb.TASK_STATE_INTERRUPTED
    assert "the nod instance running this task stopped" in swept.message
    still = (await second_stub.GetTask(pb.GetTaskRequest(task_id=on_second.id), metadata=meta)).task
    assert still.state == pb.TASK_STATE_RUNNING
