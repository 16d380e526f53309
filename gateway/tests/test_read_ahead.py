"""The live timeline's read-ahead: every item in its order, whether a newer
one is already here, the source's error where its items end, and the
source closed when the reader is left."""

import asyncio

import pytest

from nod_gateway.read_ahead import ReadAhead


class Source:
    """Items given by the test as it likes; notes whether it was closed."""

    def __init__(self) -> None:
        self.items: asyncio.Queue[object] = asyncio.Queue()
        self.closed = False

    async def stream(self):
        try:
            while (item := await self.items.get()) is not None:
                if isinstance(item, Exception):
                    raise item
                yield item
        finally:
            self.closed = True


async def test_items_come_in_order_and_say_when_a_newer_one_is_here():
    source = Source()
    for item in (1, 2, 3):
        source.items.put_nowait(item)
    seen = []
    async with ReadAhead(source.stream()) as ahead:
        await asyncio.sleep(0)  # the reader takes what is there
        async for item in ahead:
            seen.append((item, ahead.more_here))
            if item == 3:
                assert not ahead.more_here
                source.items.put_nowait(4)
                await asyncio.sleep(0.01)
                assert ahead.more_here
            if item == 4:
                source.items.put_nowait(None)
    assert seen == [(1, True), (2, True), (3, False), (4, False)]


async def test_the_sources_error_comes_after_its_items():
    source = Source()
    for item in (1, 2, RuntimeError("the service went away")):
        source.items.put_nowait(item)
    seen = []
    with pytest.raises(RuntimeError, match="went away"):
        async with ReadAhead(source.stream()) as ahead:
            async for item in ahead:
                seen.append(item)
    assert seen == [1, 2]


async def test_leaving_stops_the_reading_and_closes_the_source():
    source = Source()
    source.items.put_nowait(1)
    async with ReadAhead(source.stream()) as ahead:
        async for item in ahead:
            assert item == 1
            break
    assert source.closed
