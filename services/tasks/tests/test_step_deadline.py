"""Nothing in a run hangs without an end: a model request or a tool call
that makes no progress within NOD_TASKS_STEP_DEADLINE_S is cut off as a
Stop cuts it, without anyone's Stop and without a restart. The step in
flight ends as cut off (UNCERTAIN when it may have reached the site), the
task ends INTERRUPTED saying it took too long, nothing is retried, and Stop
and Continue work as ever afterwards. A task that waits for the person is
never cut."""

import asyncio

from nod.tasks.v1 import tasks_pb2 as pb
from nodtest.demo import shop_count, shop_wait_for_count

from .model_server import Answer, text, tool_call
from .support import begin, steps_of, wait_for

# Short, but well above what a model answer or a browser step on the demo
# shop takes on a busy machine.
STEP_DEADLINE_S = 6.0
# How long a check waits for the deadline to have acted.
WITHIN_S = STEP_DEADLINE_S + 30.0
TOOK_TOO_LONG = "made no progress for 6 s"


def stalled_model(release: asyncio.Event):
    """An answer that comes only once `release` is set (a provider that
    stopped answering mid-request, within its own read timeout)."""

    async def answer() -> Answer:
        await release.wait()
        return text("too late")

    return answer


async def test_a_model_request_past_the_deadline_ends_the_task_interrupted(
    tasks_with, model_server, demo_person
):
    release = asyncio.Event()
    model_server.script = [stalled_model(release)]
    stub = await tasks_with(
        model_url=model_server.url, model_timeout_s=120.0, step_deadline_s=STEP_DEADLINE_S
    )
    meta = demo_person.meta
    task = await begin(stub, demo_person, "a task whose model never answers")
    await wait_for(stub, meta, task.id, lambda t: t.state == pb.TASK_STATE_RUNNING)
    started = asyncio.get_running_loop().time()

    ended = await wait_for(
        stub, meta, task.id, lambda t: t.state != pb.TASK_STATE_RUNNING, timeout_s=WITHIN_S
    )
    waited = asyncio.get_running_loop().time() - started
    assert ended.state == pb.TASK_STATE_INTERRUPTED, ended
    assert TOOK_TOO_LONG in ended.message and "say continue" in ended.message
    assert waited > STEP_DEADLINE_S - 1.0, "cut off before its deadline"
    assert len(model_server.requests) == 1, "a request cut off is not sent again"
    release.set()

    # Continue runs it again, as after any interruption.
    model_server.script = [tool_call("finish", {"message": "done after all"})]
    await stub.Continue(pb.ContinueRequest(task_id=task.id, text="go on"), metadata=meta)
    done = await wait_for(stub, meta, task.id, lambda t: t.state == pb.TASK_STATE_DONE)
    assert done.message == "done after all"


async def test_stop_ends_a_stalled_run_and_the_deadline_changes_nothing_after(
    tasks_with, model_server, demo_person
):
    release = asyncio.Event()
    model_server.script = [stalled_model(release)]
    stub = await tasks_with(
        model_url=model_server.url, model_timeout_s=120.0, step_deadline_s=STEP_DEADLINE_S
    )
    meta = demo_person.meta
    task = await begin(stub, demo_person, "a task stopped while its model is silent")
    await wait_for(stub, meta, task.id, lambda t: t.state == pb.TASK_STATE_RUNNING)
    await stub.Stop(pb.StopRequest(task_id=task.id), metadata=meta)
    stopped = await wait_for(stub, meta, task.id, lambda t: t.state == pb.TASK_STATE_STOPPED)

    await asyncio.sleep(STEP_DEADLINE_S + 1.0)
    after = (await stub.GetTask(pb.GetTaskRequest(task_id=task.id), metadata=meta)).task
    assert after.state == pb.TASK_STATE_STOPPED
    assert after.message == stopped.message
    release.set()


async def test_a_held_sign_in_past_the_deadline_ends_uncertain_and_is_never_redone(
    tasks_with, model_server, demo_person, shop_site
):
    login = {
        "login_id": demo_person.login.id,
        "fields": {"username": "#username", "password": "#password"},
        "submit": "#login button",
    }
    model_server.script = [
        tool_call("navigate", {"url": f"{shop_site.url}/login"}),
        tool_call("enter_saved_login", login),
    ]
    stub = await tasks_with(model_url=model_server.url, step_deadline_s=STEP_DEADLINE_S)
    meta = demo_person.meta
    # The shop takes the sign-in and holds its answer past the step deadline
    # (the browser's own entry timeout is longer).
    shop_site.state.set_mode("login", "hold")
    task = await begin(stub, demo_person, "sign in to a shop that never answers")
    await shop_wait_for_count(shop_site, "login", 1, timeout_s=WITHIN_S)

    ended = await wait_for(
        stub, meta, task.id, lambda t: t.state != pb.TASK_STATE_RUNNING, timeout_s=WITHIN_S
    )
    assert ended.state == pb.TASK_STATE_INTERRUPTED, ended
    assert TOOK_TOO_LONG in ended.message
    entry = [s for s in await steps_of(stub, meta, task.id) if s.tool == "enter_saved_login"]
    assert [s.state for s in entry] == [pb.STEP_STATE_UNCERTAIN]
    assert "took longer than 6 s" in entry[0].reason
    # Nothing retried it: the model was asked nothing more, the shop got one.
    assert len(model_server.requests) == 2
    await asyncio.sleep(1.0)
    assert shop_count(shop_site, "login") == 1


async def test_a_task_waiting_for_the_person_is_never_cut(tasks_with, model_server, demo_person):
    model_server.script = [tool_call("ask_person", {"question": "which colour?"})]
    stub = await tasks_with(model_url=model_server.url, step_deadline_s=STEP_DEADLINE_S)
    meta = demo_person.meta
    task = await begin(stub, demo_person, "a task that asks the person something")
    asked = await wait_for(stub, meta, task.id, lambda t: t.state == pb.TASK_STATE_WAITING)

    await asyncio.sleep(STEP_DEADLINE_S * 2)
    still = (await stub.GetTask(pb.GetTaskRequest(task_id=task.id), metadata=meta)).task
    assert still.state == pb.TASK_STATE_WAITING
    assert still.wait.id == asked.wait.id
    asking = [s for s in await steps_of(stub, meta, task.id) if s.tool == "ask_person"]
    assert [s.state for s in asking] == [pb.STEP_STATE_RUNNING]
