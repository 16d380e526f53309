"""The background loops wait for notices, not for their next look: a task
queued is taken as soon as its insert commits, with the queue's own looks
far apart; and a notice missed while the listening connection was down is
still found by the look the queue takes on its own."""

import asyncio

import psycopg

from nod.tasks.v1 import tasks_pb2 as pb
from nodkit.db import libpq_url

from .model_server import text

# Far longer than any test here waits: a task taken in time was announced.
NO_LOOKS_S = 120.0
QUEUE_LISTENER = "nod-notices-nod_task_queue"
# How long a transaction holds a queued task's row, past the queue's look.
HELD_S = 2.0


async def until_taken(stub, meta, task_id: str, within_s: float) -> float:
    """Seconds until the task left QUEUED (it was taken)."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    async with asyncio.timeout(within_s):
        while True:
            request = pb.GetTaskRequest(task_id=task_id)
            task = (await stub.GetTask(request, metadata=meta)).task
            if task.state != pb.TASK_STATE_QUEUED:
                return loop.time() - started
            await asyncio.sleep(0.02)


async def listeners(db) -> int:
    found = await db.execute(
        "SELECT count(*) FROM pg_stat_activity"
        " WHERE application_name = %s AND datname = current_database()",
        (QUEUE_LISTENER,),
    )
    return (await found.fetchone())[0]


async def test_a_queued_task_is_taken_at_once_though_the_queue_never_looks_on_its_own(
    tasks_with, model_server, as_person
):
    model_server.script = [text("Hello")]
    stub = await tasks_with(model_url=model_server.url, poll_s=NO_LOOKS_S)
    await asyncio.sleep(1.0)  # its first look at the queue, at start, is over
    task = (await stub.StartTask(pb.StartTaskRequest(text="Say hello"), metadata=as_person)).task

    # Well under a second on an idle machine; generous for a busy one, and
    # still far inside the two minutes a look of its own would take.
    taken_s = await until_taken(stub, as_person, task.id, within_s=30)
    assert taken_s < 10


async def test_a_task_queued_while_nobody_listened_is_found_by_the_queues_own_look(
    tasks_with, model_server, as_person, db, log_tee
):
    model_server.script = [text("Hello")]
    # The queue looks on its own every 2 s; a lost listening connection is
    # opened again only after two minutes, so nothing announces the task.
    stub = await tasks_with(model_url=model_server.url, poll_s=2.0, notices_retry_s=NO_LOOKS_S)
    await asyncio.sleep(1.0)
    assert await listeners(db) == 1
    lost_before = "\n".join(log_tee.lines).count('"notices.not_listening"')
    await db.execute(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
        " WHERE application_name = %s AND datname = current_database()",
        (QUEUE_LISTENER,),
    )
    async with asyncio.timeout(30):
        while True:  # the listener is gone, and knows it
            lost = "\n".join(log_tee.lines).count('"notices.not_listening"') > lost_before
            if lost and await listeners(db) == 0:
                break
            await asyncio.sleep(0.05)

    task = (await stub.StartTask(pb.StartTaskRequest(text="Say hello"), metadata=as_person)).task
    await until_taken(stub, as_person, task.id, within_s=60)
    assert await listeners(db) == 0, "it was found by a look, not by listening again"


async def test_a_queued_task_held_by_another_transaction_at_the_look_is_taken_soon_after(
    tasks_with, model_server, as_person, db, tasks_migrated
):
    # A transaction holding a queued task's row while the queue looks (in a
    # run: an end told once more, the notes of a Continue) hides it from the
    # look (SKIP LOCKED), and when it ends it announces nothing: without a
    # look soon after, the task would wait for the queue's own look.
    model_server.script = [text("Hello")]
    answering_only = await tasks_with(model_url=model_server.url, max_running=0)
    task = (
        await answering_only.StartTask(pb.StartTaskRequest(text="Say hello"), metadata=as_person)
    ).task

    async with await psycopg.AsyncConnection.connect(libpq_url(tasks_migrated)) as holder:
        await holder.execute("SELECT 1 FROM tasks.tasks WHERE id = %s FOR KEY SHARE", (task.id,))
        stub = await tasks_with(model_url=model_server.url, poll_s=NO_LOOKS_S)
        await asyncio.sleep(HELD_S)  # its first look, at start, passed the task over
        queued = await db.execute("SELECT state FROM tasks.tasks WHERE id = %s", (task.id,))
        assert (await queued.fetchone())[0] == "queued"
        await holder.commit()

    taken_s = await until_taken(stub, as_person, task.id, within_s=30)
    assert taken_s < 10
