"""Tasks waiting on a decision or a payment are looked at in turn, a batch a
round: however many wait, each one's answer moves it on."""

from nod.tasks.v1 import tasks_pb2 as pb
from nod_tasks.adapters.models.scripted import DEMO_TASKS

from .support import begin, ended, say_yes_to_action, wait_for, waiting


async def test_the_newest_of_more_waiting_tasks_than_a_round_looks_at_is_moved_on(
    tasks_with, model_server, demo_person, webhook_app
):
    model_server.plan_as_scripted(demo_person.context(""))
    # A round looks at two waiting tasks; five wait for a decision.
    stub = await tasks_with(model_url=model_server.url, outside_waits_batch=2)
    meta = demo_person.meta
    started = [await begin(stub, demo_person, DEMO_TASKS["note"]) for _ in range(5)]
    asked = [await wait_for(stub, meta, t.id, waiting(pb.WAIT_KIND_DECISION)) for t in started]
    # The one waiting longest unchanged comes first in a round; take the last.
    newest = max(asked, key=lambda t: (t.updated_at.ToDatetime(), t.id))

    await say_yes_to_action(demo_person, newest)

    done = await wait_for(stub, meta, newest.id, ended, timeout_s=20)
    assert done.state == pb.TASK_STATE_DONE, done.message
    assert [r["body"] for r in webhook_app.received] == [{"text": "hello from nod"}]
    for other in asked:
        if other.id != newest.id:
            still = (await stub.GetTask(pb.GetTaskRequest(task_id=other.id), metadata=meta)).task
            assert still.state == pb.TASK_STATE_WAITING
