"""What the commands use, built once from the settings: the gateway's
channels to the services (presenting the operator's token and certificate)
and its people store's database."""

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

import grpc
from sqlalchemy.ext.asyncio import AsyncEngine

from nod.tasks.v1 import tasks_pb2 as tasks
from nod_gateway import SCHEMA
from nod_gateway.peers import Nod, Peers, ServiceCallFailed
from nod_gateway.people import store
from nodctl.output import Failed
from nodctl.settings import CALLER, NodctlSettings
from nodkit.db import create_engine


@dataclass
class Parts:
    settings: NodctlSettings
    engine: AsyncEngine
    peers: Peers

    def as_person(self, person: store.Person) -> Nod:
        """Calls made for the person, by their id (what the services know)."""
        return self.peers.for_person(person.id, person.name)

    async def people(self) -> list[store.Person]:
        return await store.list_people(self.engine)

    async def person(self, name: str) -> store.Person:
        """The person signing in as `name` now; Failed if there is none."""
        found = await store.person_named(self.engine, name)
        if found is None:
            raise Failed(f"there is no person named {name!r}")
        return found

    async def owner_of(self, task_id: str, name: str | None) -> store.Person:
        """The person whose task it is: the one named `name` if given (and
        theirs), else found by asking as each person in turn (another's task
        is NOT_FOUND)."""
        candidates = [await self.person(name)] if name else await self.people()
        for person in candidates:
            try:
                await self.as_person(person).tasks.GetTask(tasks.GetTaskRequest(task_id=task_id))
            except ServiceCallFailed as failure:
                if failure.error.code == grpc.StatusCode.NOT_FOUND:
                    continue
                raise
            return person
        whose = f"{name}'s" if name else "anyone's"
        raise Failed(f"task {task_id} is not {whose} (no such task)")


@contextlib.asynccontextmanager
async def parts(settings: NodctlSettings) -> AsyncIterator[Parts]:
    engine = create_engine(settings, SCHEMA)
    peers = Peers(settings, caller=CALLER)
    try:
        yield Parts(settings, engine, peers)
    finally:
        await peers.close()
        await engine.dispose()
