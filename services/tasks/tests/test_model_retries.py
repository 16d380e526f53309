"""G10, the one retry: a model request that failed for a temporary reason
(429, 5xx, a connection error, a read timeout) is tried again, four attempts
at most, waiting as Retry-After says; anything else is not retried; every
attempt is in the task's history; a retry never repeats a tool call."""

import asyncio

from nod.tasks.v1 import tasks_pb2 as pb
from nodtest.demo import shop_count

from .model_server import status, text, tool_call
from .support import begin, ended, events_of, steps_of, wait_for

FINISH = tool_call("finish", {"message": "all done"})


def attempts(events: list[pb.TaskEvent]) -> list[tuple[int, int, bool]]:
    return [
        (e.model_attempt.attempt, e.model_attempt.status, e.model_attempt.retried)
        for e in events
        if e.kind == "model.attempt"
    ]


async def run_to_end(tasks_with, model_server, demo_person, **settings) -> pb.Task:
    stub = await tasks_with(model_url=model_server.url, **settings)
    task = await begin(stub, demo_person, "Do something")
    done = await wait_for(stub, demo_person.meta, task.id, ended, timeout_s=60)
    return done, await events_of(stub, demo_person.meta, task.id), stub


async def test_three_temporary_errors_then_an_answer(tasks_with, model_server, demo_person):
    model_server.script = [status(503), status(502), status(529), FINISH]
    done, events, _ = await run_to_end(tasks_with, model_server, demo_person)
    assert done.state == pb.TASK_STATE_DONE and done.message == "all done"
    assert len(model_server.requests) == 4
    assert attempts(events) == [(1, 503, True), (2, 502, True), (3, 529, True), (4, 200, False)]


async def test_always_temporary_means_exactly_four_attempts(tasks_with, model_server, demo_person):
    model_server.script = [status(503)] * 10
    done, events, _ = await run_to_end(tasks_with, model_server, demo_person)
    assert len(model_server.requests) == 4
    assert done.state == pb.TASK_STATE_FAILED
    assert "check what happened, or say continue" in done.message
    assert [a[1] for a in attempts(events)] == [503] * 4 and not attempts(events)[-1][2]


async def test_a_definite_error_is_not_retried(tasks_with, model_server, demo_person):
    model_server.script = [status(400), FINISH]
    done, events, _ = await run_to_end(tasks_with, model_server, demo_person)
    assert len(model_server.requests) == 1
    assert done.state == pb.TASK_STATE_FAILED
    assert attempts(events) == [(1, 400, False)]


async def test_retry_after_is_honoured(tasks_with, model_server, demo_person):
    model_server.script = [status(429, {"Retry-After": "1"}), FINISH]
    done, _, _ = await run_to_end(tasks_with, model_server, demo_person)
    assert done.state == pb.TASK_STATE_DONE
    first, second = model_server.arrived_at
    assert second - first >= 1.0


async def test_a_retry_after_longer_than_a_minute_ends_the_task_asking_to_continue_later(
    tasks_with, model_server, demo_person
):
    model_server.script = [status(503, {"Retry-After": "120"}), FINISH]
    done, _, _ = await run_to_end(tasks_with, model_server, demo_person)
    assert len(model_server.requests) == 1
    assert done.state == pb.TASK_STATE_FAILED and "continue later" in done.message


async def test_a_read_timeout_is_temporary(tasks_with, model_server, demo_person):
    async def too_slow():
        await asyncio.sleep(2.0)
        return text("too late")

    model_server.script = [too_slow, FINISH]
    done, events, _ = await run_to_end(tasks_with, model_server, demo_person, model_timeout_s=1.0)
    assert done.state == pb.TASK_STATE_DONE and done.message == "all done"
    assert len(model_server.requests) == 2
    assert [a[1] for a in attempts(events)] == [0, 200]


async def test_a_tool_call_inside_retried_exchanges_runs_once(
    tasks_with, model_server, demo_person, shop_site
):
    model_server.script = [
        status(503),
        tool_call("navigate", {"url": f"{shop_site.url}/login"}),
        status(503),
        tool_call(
            "enter_saved_login",
            {
                "login_id": demo_person.login.id,
                "fields": {"username": "#username", "password": "#password"},
                "submit": "#login button",
            },
        ),
        status(500),
        status(503),
        FINISH,
    ]
    done, _, stub = await run_to_end(tasks_with, model_server, demo_person)
    assert done.state == pb.TASK_STATE_DONE
    assert len(model_server.requests) == 7
    assert shop_count(shop_site, "login") == 1
    steps = await steps_of(stub, demo_person.meta, done.id)
    assert [s.tool for s in steps] == ["navigate", "enter_saved_login", "finish"]
