"""G11 against the worker's take: a Stop that arrives while another
transaction moves the task (queued -> running, as a worker takes it) waits
for that move and then stops the task from the state it entered. It used to
find nothing to stop: its lock saw the new state, its update the old one,
so Stop answered OK and the task ran on."""

import asyncio

import psycopg

from nod_tasks import SCHEMA
from nod_tasks.domain.tasks import STOPPED, Move, TaskState
from nod_tasks.store.database import Database
from nod_tasks.store.tasks import Which
from nodkit.db import create_engine, open_hot_path_pool
from nodtest.database import libpq_url

from .conftest import tasks_settings


async def test_a_stop_waiting_on_the_take_stops_the_task(
    tasks_migrated, service_token, peers, person, db
):
    settings = tasks_settings(tasks_migrated, service_token, peers)
    engine = create_engine(settings, SCHEMA)
    hot = await open_hot_path_pool(settings, SCHEMA, 2)
    tasks_db = Database(engine, hot, settings.db_call_timeout_s)
    try:
        async with tasks_db.transaction() as tx:
            task = await tx.tasks.insert(person, "Water the plants", None)
        assert task is not None and task.state == TaskState.QUEUED

        async def stop():
            async with tasks_db.transaction() as tx:
                which = Which(owner=person, task_id=task.id)
                return await tx.tasks.move(Move.STOP, which, actor=person, message=STOPPED)

        async with await psycopg.AsyncConnection.connect(libpq_url(tasks_migrated)) as taker:
            await taker.execute(
                "UPDATE tasks.tasks SET state = 'running', runner_instance = 'a-worker'"
                " WHERE id = %s",
                (task.id,),
            )
            stopping = asyncio.create_task(stop())
            await asyncio.sleep(1.0)  # the Stop now waits for the take's row lock
            assert not stopping.done()
            await taker.commit()
        stopped = await asyncio.wait_for(stopping, 10)

        assert [(t.id, t.state) for t in stopped] == [(task.id, TaskState.STOPPED)]
        row = await (
            await db.execute("SELECT state FROM tasks.tasks WHERE id = %s", (task.id,))
        ).fetchone()
        assert row == ("stopped",)
        left = await (
            await db.execute(
                "SELECT from_state FROM tasks.events WHERE task_id = %s AND state = 'stopped'",
                (task.id,),
            )
        ).fetchall()
        assert left == [("running",)]
    finally:
        await hot.close()
        await engine.dispose()
