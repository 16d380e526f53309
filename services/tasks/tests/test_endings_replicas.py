"""G11 and G12 across replicas: one instance tells a task's end at a time.

Replicas share the ended tasks still to be told. Here one replica's telling
of a Stop waits on a payments service that doesn't answer, and a second
replica's telling of the same end begins meanwhile, its own payments link
frozen too. The first is told once payments answers again; the person says
Continue and the next run waits for a yes to a new proposal. Then the
second replica's link thaws: its telling must not end that new proposal
from a look at the task older than the first telling's end. The person's
yes reaches the app once."""

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

from nod.tasks.v1 import tasks_pb2 as pb
from nod_tasks import SCHEMA
from nod_tasks.adapters.models.scripted import DEMO_TASKS
from nod_tasks.app.endings import Endings
from nod_tasks.store.database import Database
from nod_tasks.store.models import INSTANCE_LEASES
from nod_tasks.wiring import peers_of
from nodkit.db import create_engine, open_hot_path_pool
from nodtest.proxy import FreezableProxy

from .conftest import tasks_settings
from .support import begin, note_action, say_yes_to_action, steps_of, wait_for, waiting

OTHER_REPLICA = "tasks-other-replica"


@dataclass
class OtherReplica:
    db: Database
    endings: Endings

    async def record_of(self, owner: str, task_id: str):
        """The task as this replica's round reads it for its telling."""
        async with self.db.reads() as tx:
            record = await tx.tasks.get(owner, task_id)
        assert record is not None
        return record


@contextlib.asynccontextmanager
async def other_replica(settings) -> AsyncIterator[OtherReplica]:
    """A second replica's telling of ended tasks, on the same database, its
    instance lease live."""
    engine = create_engine(settings, SCHEMA)
    hot = await open_hot_path_pool(settings, SCHEMA, 2)
    peers = peers_of(settings)
    async with engine.begin() as conn:
        await INSTANCE_LEASES.renew(conn, settings.instance_id, 300)
    db = Database(engine, hot, settings.db_call_timeout_s)
    try:
        yield OtherReplica(
            db,
            Endings(
                db,
                peers,
                batch=10,
                instance_id=settings.instance_id,
                kept_sessions=settings.kept_sessions_per_person,
            ),
        )
    finally:
        await peers.close()
        await hot.close()
        await engine.dispose()


async def link_to(address: str) -> FreezableProxy:
    host, port = address.rsplit(":", 1)
    return await FreezableProxy(host, int(port)).start()


async def column_of(db, task_id: str, column: str):
    cursor = await db.execute(f"SELECT {column} FROM tasks.tasks WHERE id = %s", (task_id,))
    return (await cursor.fetchone())[0]


async def until(check, what: str, timeout_s: float = 20.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not await check():
        assert asyncio.get_running_loop().time() < deadline, what
        await asyncio.sleep(0.05)


async def proposals(stub, meta, task_id: str) -> list[pb.Step]:
    return [s for s in await steps_of(stub, meta, task_id) if s.tool == "propose_app_action"]


async def test_a_second_replicas_telling_never_ends_what_the_next_run_waits_for(
    tasks_with, tasks_migrated, service_token, peers, model_server, demo_person, webhook_app, db
):
    model_server.plan_as_scripted(demo_person.context(""))
    to_payments = await link_to(peers.payments.address)
    stub = await tasks_with(
        model_url=model_server.url,
        payments_addr=f"127.0.0.1:{to_payments.port}",
        peer_timeout_s=1.0,
        sweep_interval_s=0.2,
    )
    meta = demo_person.meta
    task = await begin(stub, demo_person, DEMO_TASKS["note"])
    await wait_for(stub, meta, task.id, waiting(pb.WAIT_KIND_DECISION))

    to_payments.freeze()
    await stub.Stop(pb.StopRequest(task_id=task.id), metadata=meta)

    async def first_replica_telling() -> bool:
        return await column_of(db, task.id, "teller_instance") not in (None, OTHER_REPLICA)

    await until(first_replica_telling, "the first replica never took the telling")

    others_link = await link_to(peers.payments.address)
    others_link.freeze()
    settings = tasks_settings(
        tasks_migrated,
        service_token,
        peers,
        instance_id=OTHER_REPLICA,
        payments_addr=f"127.0.0.1:{others_link.port}",
        peer_timeout_s=30.0,
    )
    async with other_replica(settings) as other:
        record = await other.record_of(demo_person.name, task.id)
        telling = asyncio.ensure_future(other.endings.tell(record))

        to_payments.thaw()

        async def told() -> bool:
            return not await column_of(db, task.id, "cleanup_pending")

        await until(told, "the first replica's telling never ended")
        model_server.script = [note_action(demo_person)]  # the note, proposed again
        await stub.Continue(pb.ContinueRequest(task_id=task.id, text="Go on."), metadata=meta)
        decision = await wait_for(stub, meta, task.id, waiting(pb.WAIT_KIND_DECISION))
        first, second = await proposals(stub, meta, task.id)
        assert second.state == pb.STEP_STATE_RUNNING
        assert second.approval_id != first.approval_id

        others_link.thaw()
        await asyncio.wait_for(telling, 35)

    second = (await proposals(stub, meta, task.id))[1]
    assert second.state == pb.STEP_STATE_RUNNING, f"ended by a stale telling: {second.reason!r}"
    await say_yes_to_action(demo_person, decision)
    await wait_for(stub, meta, task.id, lambda t: t.state == pb.TASK_STATE_DONE)
    assert len(webhook_app.received) == 1
    await to_payments.close()
    await others_link.close()
