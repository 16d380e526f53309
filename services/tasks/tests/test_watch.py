"""WatchTask hears a task's new events when they are written, by whichever
instance writes them, instead of finding them at its next look; with its
listening connection cut, it listens again and looks at once."""

import asyncio

from nod.tasks.v1 import tasks_pb2 as pb

from .model_server import text

# Far longer than any test here waits: a watch that ends in time was woken.
NO_LOOKS_S = 120.0


def thinking(seconds: float, reply: str):
    async def answer():
        await asyncio.sleep(seconds)
        return text(reply)

    return answer


async def watch_to_the_end(stub, meta, task_id: str) -> list[str]:
    """The event kinds a WatchTask streams until it ends (the task ended)."""
    request = pb.WatchTaskRequest(task_id=task_id)
    return [reply.event.kind async for reply in stub.WatchTask(request, metadata=meta, timeout=60)]


async def start(stub, meta, words: str) -> pb.Task:
    return (await stub.StartTask(pb.StartTaskRequest(text=words), metadata=meta)).task


async def test_a_watch_hears_the_events_another_instance_writes_as_they_are_written(
    tasks_with, model_server, as_person
):
    model_server.script = [thinking(1.0, "Hello from the model")]
    # The watched instance never looks on its own and never runs a task.
    watched = await tasks_with(watch_poll_s=NO_LOOKS_S, max_running=0, model_url=model_server.url)
    await tasks_with(model_url=model_server.url, instance_id="tasks-runner")
    task = await start(watched, as_person, "Say hello")

    async with asyncio.timeout(20):
        kinds = await watch_to_the_end(watched, as_person, task.id)

    assert kinds[0] == "task.queued" and kinds[-1] == "task.ended"
    done = (await watched.GetTask(pb.GetTaskRequest(task_id=task.id), metadata=as_person)).task
    assert done.state == pb.TASK_STATE_DONE and done.message == "Hello from the model"


async def test_a_watch_whose_listening_connection_was_cut_listens_again_and_looks(
    tasks_with, model_server, as_person, db, log_tee
):
    model_server.script = [thinking(3.0, "Still here")]
    watched = await tasks_with(watch_poll_s=NO_LOOKS_S, max_running=0, model_url=model_server.url)
    await tasks_with(model_url=model_server.url, instance_id="tasks-runner")
    task = await start(watched, as_person, "Say something")
    watching = asyncio.ensure_future(watch_to_the_end(watched, as_person, task.id))
    await asyncio.sleep(0.5)

    cut = await db.execute(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
        " WHERE application_name = 'nod-notices-nod_task_events' AND datname = current_database()"
    )
    assert len(await cut.fetchall()) >= 2  # both instances listened

    async with asyncio.timeout(20):
        kinds = await watching
    assert kinds[-1] == "task.ended"
    log = "\n".join(log_tee.lines)
    assert log.count('"notices.not_listening"') >= 2
    listening = await db.execute(
        "SELECT count(*) FROM pg_stat_activity"
        " WHERE application_name = 'nod-notices-nod_task_events' AND datname = current_database()"
    )
    assert (await listening.fetchone())[0] >= 2
