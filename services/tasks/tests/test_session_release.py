"""A task's browser session is closed when the task ends, however it ends
(done, failed, stopped, continued and done again): a runner holding a few
sessions serves task after task, nothing stays open past a short grace,
and the runner's memory doesn't grow with the tasks it served. A task that
ended with a step that may have happened keeps its session for a look, but
a person keeps only so many: a newer one closes the oldest."""

import asyncio

from nod.browser.v1 import browser_pb2, browser_pb2_grpc
from nod.tasks.v1 import tasks_pb2 as pb
from nodkit.client import open_channel
from nodtest.proc import tree_pss_mib
from nodtest.processes import Peer

from .model_server import status, text, tool_call
from .support import begin, ended, wait_for, waiting

RUNNER_PLACES = 2
# How long a session may outlive its task: the end is told at once.
GRACE_S = 10.0
# The runner's memory (Python, Playwright's driver, every Chromium process)
# after the last third of its tasks, against after the first.
MEMORY_GROWTH = 1.10


async def sessions_become(runner, as_person, task_ids: list[str]) -> list[str]:
    """The task ids of the person's open sessions, once they are
    `task_ids` (each end told) or GRACE_S has passed."""
    loop = asyncio.get_running_loop()
    give_up_at = loop.time() + GRACE_S
    while True:
        listed = await runner.ListSessions(browser_pb2.ListSessionsRequest(), metadata=as_person)
        now = sorted(session.task_id for session in listed.sessions)
        if now == sorted(task_ids) or loop.time() > give_up_at:
            return now
        await asyncio.sleep(0.2)


async def settled_pss_mib(pid: int) -> float:
    """The process tree's memory once Chromium has let go of closed
    contexts' pages: the least of a few readings a moment apart."""
    readings = []
    for _ in range(4):
        await asyncio.sleep(0.5)
        readings.append(tree_pss_mib(pid))
    return min(readings)


async def test_sessions_close_when_their_tasks_end(
    tasks_with, model_server, service_env, peers, as_person, shop_site, tmp_path
):
    env = {
        **service_env,
        "NOD_CLAIMS_ADDR": peers.claims.address,
        "NOD_BROWSER_MAX_SESSIONS": str(RUNNER_PLACES),
        "NOD_INSTANCE_ID": "browser-few-places",
    }
    browser = await Peer("browser", env, tmp_path / "browser.log").start()
    channel = open_channel(browser.address)
    runner = browser_pb2_grpc.BrowserServiceStub(channel)
    try:
        stub = await tasks_with(model_url=model_server.url, browser_addr=browser.address)
        look = tool_call("navigate", {"url": f"{shop_site.url}/login"})
        ask = tool_call("ask_person", {"question": "Which account?"})
        # Three times as many tasks as the runner has places: each opens a
        # session with its first page and ends in its own way.
        endings = [
            ("done", [look, text("Looked at the sign-in page.")]),
            ("failed", [look, status(400)]),
            ("stopped", [look, ask]),
            ("done", [look, text("Looked again.")]),
            ("continued", [look, text("First run.")]),
            ("done", [look, text("Last one.")]),
        ]
        memory: list[float] = []
        for number, (how, answers) in enumerate(endings, 1):
            model_server.script = list(answers)
            start = pb.StartTaskRequest(text=f"Look at the shop ({how})")
            task = (await stub.StartTask(start, metadata=as_person)).task
            if how == "stopped":
                await wait_for(stub, as_person, task.id, waiting(pb.WAIT_KIND_ANSWER))
                await stub.Stop(pb.StopRequest(task_id=task.id), metadata=as_person)
            task = await wait_for(stub, as_person, task.id, ended)
            if how == "continued":
                model_server.script = [look, text("Second run.")]
                go_on = pb.ContinueRequest(task_id=task.id, text="Once more", request_id=task.id)
                await stub.Continue(go_on, metadata=as_person)
                task = await wait_for(stub, as_person, task.id, lambda t: t.run == 2 and ended(t))
            assert task.state != pb.TASK_STATE_FAILED or how == "failed", task.message
            if number % RUNNER_PLACES == 0:
                # A third of the tasks done: every session closed, then the memory.
                assert await sessions_become(runner, as_person, []) == [], f"after task {number}"
                memory.append(await settled_pss_mib(browser.process.process.pid))  # type: ignore[union-attr]

        first, last = memory[0], memory[-1]
        assert last <= first * MEMORY_GROWTH, f"the runner grew from {first:.0f} to {last:.0f} MiB"
    finally:
        await channel.close()
        browser.stop()


async def test_a_task_waits_for_a_place_in_a_full_browser(
    tasks_with, model_server, service_env, peers, as_person, shop_site, tmp_path
):
    """One place, held by a task that waits for the person: the next task's
    first page waits for the place (it doesn't fail), and goes on once the
    first task is stopped and its session closed."""
    env = {
        **service_env,
        "NOD_CLAIMS_ADDR": peers.claims.address,
        "NOD_BROWSER_MAX_SESSIONS": "1",
        "NOD_INSTANCE_ID": "browser-one-place",
    }
    browser = await Peer("browser", env, tmp_path / "browser.log").start()
    try:
        stub = await tasks_with(model_url=model_server.url, browser_addr=browser.address)
        look = tool_call("navigate", {"url": f"{shop_site.url}/login"})
        model_server.script = [
            look,
            tool_call("ask_person", {"question": "Which account?"}),
            look,
            text("Looked at the sign-in page."),
        ]
        first = (await stub.StartTask(pb.StartTaskRequest(text="First"), metadata=as_person)).task
        await wait_for(stub, as_person, first.id, waiting(pb.WAIT_KIND_ANSWER))
        second = (await stub.StartTask(pb.StartTaskRequest(text="Second"), metadata=as_person)).task
        await asyncio.sleep(2.0)
        still = (await stub.GetTask(pb.GetTaskRequest(task_id=second.id), metadata=as_person)).task
        assert still.state == pb.TASK_STATE_RUNNING, still.message

        await stub.Stop(pb.StopRequest(task_id=first.id), metadata=as_person)

        done = await wait_for(stub, as_person, second.id, ended)
        assert (done.state, done.outcome) == (pb.TASK_STATE_DONE, pb.TASK_OUTCOME_DONE)
    finally:
        browser.stop()


async def test_past_the_cap_a_newer_kept_session_closes_the_oldest(
    tasks_with, model_server, demo_person, shop_site, peers
):
    """Two sign-ins held past the step deadline end INTERRUPTED with the
    entry UNCERTAIN, each keeping its session for a look; with one kept
    session per person, the second's end closes the first's."""
    stub = await tasks_with(
        model_url=model_server.url, step_deadline_s=4.0, kept_sessions_per_person=1
    )
    channel = open_channel(peers.browser.address)
    runner = browser_pb2_grpc.BrowserServiceStub(channel)
    login = {
        "login_id": demo_person.login.id,
        "fields": {"username": "#username", "password": "#password"},
        "submit": "#login button",
    }
    shop_site.state.set_mode("login", "hold")
    ids: list[str] = []
    kept: list[list[str]] = []
    try:
        for number in (1, 2):
            model_server.script = [
                tool_call("navigate", {"url": f"{shop_site.url}/login"}),
                tool_call("enter_saved_login", login),
            ]
            task = await begin(stub, demo_person, f"sign in, held ({number})")
            gone = await wait_for(stub, demo_person.meta, task.id, ended, timeout_s=60)
            assert gone.state == pb.TASK_STATE_INTERRUPTED, gone
            ids.append(task.id)
            kept.append(await sessions_become(runner, demo_person.meta, [task.id]))
        assert kept == [[ids[0]], [ids[1]]], "only the newest kept session should stay open"
    finally:
        shop_site.state.set_mode("login", "ok")
        shop_site.state.release()
        await channel.close()
