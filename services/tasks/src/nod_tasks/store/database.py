"""The tasks schema as the use cases reach it, with no SQL in sight: a
transaction and the rows it works on (`async with db.transaction() as tx:
await tx.tasks.move(...)`), a consistent read, and the agent loop's two
one-statement writes on the hot path's autocommit pool."""

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

from psycopg_pool import AsyncConnectionPool
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from nod_tasks.domain import prompt
from nod_tasks.domain.events import TaskEvent
from nod_tasks.domain.pictures import PagePicture
from nod_tasks.domain.steps import StepEnd, StepRecord, Subject
from nod_tasks.store import erasure, events, screenshots, steps, transcript
from nod_tasks.store.looks import LookRows
from nod_tasks.store.screenshots import ScreenshotRows
from nod_tasks.store.steps import StepRows
from nod_tasks.store.tasks import TaskRows
from nodkit.db import call_deadline


@dataclass
class Transaction:
    """One transaction's view of the tasks schema."""

    conn: AsyncConnection

    def __post_init__(self) -> None:
        self.tasks = TaskRows(self.conn)
        self.steps = StepRows(self.conn)
        self.screenshots = ScreenshotRows(self.conn)
        self.looks = LookRows(self.conn)

    async def add_event(self, task_id: str, kind: str, data: dict[str, Any]) -> None:
        await events.add_event(self.conn, task_id, kind, data)

    async def events(self, task_id: str, after: int, limit: int) -> list[TaskEvent]:
        return await events.list_events(self.conn, task_id, after, limit)

    async def say(self, task_id: str, *entries: prompt.Entry) -> None:
        """What the model is told next (the person's words)."""
        await transcript.add(self.conn, task_id, *entries)

    async def transcript(self, task_id: str) -> list[prompt.Entry]:
        return await transcript.read(self.conn, task_id)

    async def erase_words_of(self, owner: str) -> erasure.WordsErased:
        """The words of the owner's settled tasks (the person is being removed)."""
        return await erasure.erase_words_of(self.conn, owner)


class Database:
    def __init__(self, engine: AsyncEngine, hot: AsyncConnectionPool, limit_s: float) -> None:
        self._engine = engine
        self._hot = hot
        self._limit_s = limit_s

    @contextlib.asynccontextmanager
    async def transaction(self) -> AsyncIterator[Transaction]:
        async with self._engine.begin() as conn:
            yield Transaction(conn)

    @contextlib.asynccontextmanager
    async def snapshot(self) -> AsyncIterator[Transaction]:
        """Reads that must agree with each other (a task and its events)."""
        async with self._engine.connect() as conn:
            await conn.execution_options(isolation_level="REPEATABLE READ")
            yield Transaction(conn)

    @contextlib.asynccontextmanager
    async def reads(self) -> AsyncIterator[Transaction]:
        async with self._engine.connect() as conn:
            yield Transaction(conn)

    async def start_step(
        self,
        *,
        task_id: str,
        instance_id: str,
        number: int,
        call: prompt.Called,
        subject: Subject,
        also: Sequence[tuple[str, dict[str, Any]]] = (),
    ) -> StepRecord | None:
        async with self._hot_connection() as conn:
            return await steps.start(
                conn,
                task_id=task_id,
                instance_id=instance_id,
                number=number,
                call=call,
                subject=subject,
                also=also,
            )

    async def end_step(
        self, step: StepRecord, outcome: StepEnd, *, in_flight_on: str | None = None
    ) -> StepRecord | None:
        async with self._hot_connection() as conn:
            return await steps.end(conn, step, outcome, in_flight_on=in_flight_on)

    async def keep_screenshot(
        self, task_id: str, number: int, picture: PagePicture, cap_bytes: int
    ) -> bool:
        """A step's page picture, beside the hot path (it never waits on the
        hot pool, sized for the steps' own statements); False when the
        task's cap leaves no room for it."""
        async with self._engine.begin() as conn:
            return await screenshots.keep(conn, task_id, number, picture, cap_bytes)

    @contextlib.asynccontextmanager
    async def _hot_connection(self) -> AsyncIterator[Any]:
        async with asyncio.timeout_at(call_deadline(self._limit_s)):
            async with self._hot.connection() as conn:
                yield conn
