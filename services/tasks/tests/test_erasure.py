"""A removed person's task words (EraseTaskWords, called by nodctl people
remove): erased only from tasks that have ended and whose end the other
services have heard, nobody else's, once; the tasks and their steps'
tools and states stay."""

from nod.tasks.v1 import tasks_pb2 as pb
from nodkit.client import call_metadata

from .model_server import text, tool_call
from .support import begin, ended, events_of, steps_of, wait_for, waiting

WORDS = "paint the fence lilac"
QUESTION = "Which shade of lilac?"


async def erase(stub, meta) -> pb.EraseTaskWordsResponse:
    return await stub.EraseTaskWords(pb.EraseTaskWordsRequest(), metadata=meta)


async def rows_holding(db, task_id: str, words: str) -> dict[str, int]:
    found = {}
    for table, column in (("tasks", "id"), ("steps", "task_id"), ("events", "task_id"),
                          ("transcript", "task_id"), ("continue_requests", "task_id")):  # fmt: skip
        cursor = await db.execute(
            f"SELECT count(*) FROM tasks.{table} AS t WHERE {column} = %s AND t::text ILIKE %s",
            (task_id, f"%{words}%"),
        )
        found[table] = (await cursor.fetchone())[0]
    return found


async def test_a_waiting_task_keeps_its_words_until_it_has_ended_and_been_told(
    tasks_with, model_server, demo_person, service_token, db
):
    stub = await tasks_with(model_url=model_server.url)
    meta = demo_person.meta
    model_server.script = [tool_call("ask_person", {"question": QUESTION}), text("Done.")]
    task = await begin(stub, demo_person, WORDS)
    await wait_for(stub, meta, task.id, waiting(pb.WAIT_KIND_ANSWER))

    going = await erase(stub, meta)
    assert going.erased == 0 and list(going.still_going) == [task.id]
    assert (await rows_holding(db, task.id, "lilac"))["tasks"] == 1

    await stub.Stop(pb.StopRequest(task_id=task.id), metadata=meta)
    await wait_for(stub, meta, task.id, ended)
    stranger = await erase(stub, call_metadata(service_token, "someone-else"))
    assert stranger.erased == 0 and list(stranger.still_going) == []
    assert (await rows_holding(db, task.id, "lilac"))["tasks"] == 1

    erased = 0
    for _ in range(100):  # Stop's end reaches the other services within moments
        reply = await erase(stub, meta)
        erased += reply.erased
        if not reply.still_going:
            break
    assert erased == 1 and not reply.still_going
    assert set((await rows_holding(db, task.id, "lilac")).values()) == {0}
    again = await erase(stub, meta)
    assert (again.erased, list(again.still_going)) == (0, [])

    # What the promise needs stays: the task, its state, its step's tool and state.
    kept = await wait_for(stub, meta, task.id, ended)
    assert kept.state == pb.TASK_STATE_STOPPED and kept.text == "" and kept.message == ""
    steps = await steps_of(stub, meta, task.id)
    assert [step.tool for step in steps] == ["ask_person"]
    assert all(not event.person_words for event in await events_of(stub, meta, task.id))
