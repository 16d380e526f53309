"""A stream read ahead of the one writing what it says.

The live timeline writes a line and then the task's panel for each event;
the panel asks the services what the task waits for. Events come in bursts
(a step ends, the next starts, the task ends), and one after another each
event's line waited for the previous event's panel. Read ahead, the writer
can see that a newer event is already here and leave out a panel that the
next one replaces at once; no line is ever left out."""

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Generic, TypeVar

T = TypeVar("T")
_END = object()


class _Raised:
    def __init__(self, error: Exception) -> None:
        self.error = error


class ReadAhead(Generic[T]):
    """Iterates `source`'s items as they come, while a task reads the next
    ones; an error of the source is raised where its items end. Use it as
    an async context manager: leaving it stops the reading."""

    def __init__(self, source: AsyncIterator[T]) -> None:
        self._source = source
        self._items: asyncio.Queue[object] = asyncio.Queue()
        self._waiting = 0
        self._reader: asyncio.Task[None] | None = None

    @property
    def more_here(self) -> bool:
        """Another item has already arrived."""
        return self._waiting > 0

    async def __aenter__(self) -> "ReadAhead[T]":
        self._reader = asyncio.ensure_future(self._read())
        return self

    async def __aexit__(self, *_exc: object) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        # The source's own clean-up (a stream's cancel) runs now, not when
        # the garbage collector finds it.
        aclose = getattr(self._source, "aclose", None)
        if aclose is not None:
            await aclose()

    def __aiter__(self) -> "ReadAhead[T]":
        return self

    async def __anext__(self) -> T:
        item = await self._items.get()
        if item is _END:
            raise StopAsyncIteration
        if isinstance(item, _Raised):
            raise item.error
        self._waiting -= 1
        return item  # type: ignore[return-value]

    async def _read(self) -> None:
        try:
            async for item in self._source:
                self._waiting += 1
                self._items.put_nowait(item)
        except Exception as error:  # noqa: BLE001 - handed to the writer, in order
            self._items.put_nowait(_Raised(error))
            return
        self._items.put_nowait(_END)
