"""Wake-ups by key from PostgreSQL LISTEN/NOTIFY, for calls that wait on a
change (WatchTask; WatchApproval and WatchPayment through `follow`) and for
background loops that wait for work (the tasks queue, its outside waits and
the ends it tells): they sleep until a notice instead of polling.

A trigger on the watched table sends the changed row's key on a channel
when the writing transaction commits, whichever instance wrote it; every
instance listens on one connection of its own and wakes the waiters of that
key. A notice is only a hint to look again, never the news itself: a
waiter still reads its rows, and still looks on its own every so often,
because a notice can be missed (the listening connection was down, or a
write committed while it reconnected). Each time listening starts again,
every waiter is woken to look.
"""

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from typing import Protocol, TypeVar

import psycopg
from psycopg import sql
from psycopg.conninfo import make_conninfo

from nodkit.db import TCP_SETTINGS, libpq_url
from nodkit.logging import get_logger
from nodkit.settings import ServiceSettings

log = get_logger("nodkit.notices")


class Final(Protocol):
    @property
    def is_final(self) -> bool: ...


RecordT = TypeVar("RecordT", bound=Final)


async def announced_or_timeout(announced: asyncio.Event, timeout_s: float) -> None:
    """Returns when the key is announced, or after timeout_s: time to look again."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(timeout_s):
            await announced.wait()


async def first_announced(
    events: Sequence[asyncio.Event], timeout_s: float
) -> asyncio.Event | None:
    """The first of `events` to be set (one already set at once), or None
    after timeout_s: for a loop that wakes on any of several things."""
    for event in events:
        if event.is_set():
            return event
    waits = {asyncio.ensure_future(event.wait()): event for event in events}
    try:
        done, _ = await asyncio.wait(waits, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in waits:
            wait.cancel()
    return next((waits[wait] for wait in waits if wait in done), None)


class Notices:
    def __init__(self, settings: ServiceSettings, channel: str) -> None:
        self._conninfo = make_conninfo(
            libpq_url(settings.database_url),
            connect_timeout=settings.db_connect_timeout_s,
            application_name=f"nod-notices-{channel}",
            **TCP_SETTINGS,
        )
        self._channel = channel
        self._retry_s = settings.notices_retry_s
        self._waiting: dict[str, set[asyncio.Event]] = {}
        # Listening was lost since it started: listening again is news.
        self._lost = False

    @contextlib.contextmanager
    def listen(self, key: str) -> Iterator[asyncio.Event]:
        """An event set when `key` may have changed; clear it before each look."""
        event = asyncio.Event()
        self._waiting.setdefault(key, set()).add(event)
        try:
            yield event
        finally:
            waiting = self._waiting[key]
            waiting.discard(event)
            if not waiting:
                del self._waiting[key]

    def _wake(self, key: str) -> None:
        for event in self._waiting.get(key, ()):
            event.set()

    def _wake_all(self) -> None:
        for waiting in self._waiting.values():
            for event in waiting:
                event.set()

    async def run(self) -> None:
        """Listens until cancelled, connecting again after a lost connection."""
        while True:
            try:
                await self._listen_once()
            except Exception as error:  # noqa: BLE001 - waiters look on their own meanwhile
                log.warning(
                    "notices.not_listening", channel=self._channel, error=type(error).__name__
                )
                self._lost = True
            await asyncio.sleep(self._retry_s)

    async def _listen_once(self) -> None:
        conn = await psycopg.AsyncConnection.connect(self._conninfo, autocommit=True)
        async with conn:
            await conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(self._channel)))
            # At start it is part of the service's start (one line, "serving").
            (log.info if self._lost else log.debug)("notices.listening", channel=self._channel)
            self._wake_all()  # anything written while nobody listened
            async for notice in conn.notifies():
                self._wake(notice.payload)


async def follow(
    notices: "Notices", key: str, read: Callable[[], Awaitable[RecordT]], every_s: float
) -> AsyncIterator[RecordT]:
    """A record now and after every change, until it is final: read again
    when `key` is announced and every `every_s` regardless; yielded only
    when it differs from the last one yielded (WatchApproval, WatchPayment)."""
    shown = None
    with notices.listen(key) as changed:
        while True:
            changed.clear()  # before the look: a later change wakes the wait below
            record = await read()
            if record != shown:
                yield record
                shown = record
            if record.is_final:
                return
            await announced_or_timeout(changed, every_s)
