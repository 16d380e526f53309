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

    def as_person(self, person: str) -> Nod:
        return self.peers.for_person(person)

    async def people(self) -> list[str]:
        return [person.name for person in await store.list_people(self.engine)]

    async def owner_of(self, task_id: str, person: str | None) -> str:
        """The person whose task it is: `person` if given (and theirs), else
        found by asking as each person in turn (another's task is NOT_FOUND)."""
        candidates = [person] if person else await self.people()
        for name in candidates:
            try:
                await self.as_person(name).tasks.GetTask(tasks.GetTaskRequest(task_id=task_id))
            except ServiceCallFailed as failure:
                if failure.error.code == grpc.StatusCode.NOT_FOUND:
                    continue
                raise
            return name
        whose = f"{person}'s" if person else "anyone's"
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
