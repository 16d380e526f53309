"""TCP proxies that inject one fault on command into the next exchange that
matters: a PostgreSQL link's next commit, or a gRPC link's next call.

`arm(Fault.X)` sets the fault for the next matching exchange (one at a time;
arming again replaces it); `injected` counts what was done. Besides that a
proxy can freeze (pass nothing on, keep everything open), stop (close every
connection and refuse new ones: the server is down) and cut (close every
open connection once, now)."""

import asyncio
import contextlib
import enum
import functools
from collections import Counter
from dataclasses import dataclass, field

from sqlalchemy.engine import make_url

from nodtest import h2wire, pgwire


class Fault(enum.Enum):
    # PostgreSQL links: the next exchange that commits (COMMIT, or a write in autocommit).
    DROP_AFTER_COMMIT = "drop_after_commit"  # the server commits; its answer never comes back
    DROP_BEFORE_COMMIT = "drop_before_commit"  # the connection dies before the commit is sent
    DELAY_COMMIT = "delay_commit"  # the commit is held for `delay_s`, then sent
    # gRPC links: the next call (a new HTTP/2 stream).
    LOSE_ANSWER = "lose_answer"  # the request is served; the connection dies before the answer
    DROP_REQUEST = "drop_request"  # the connection dies before the request is sent
    DELAY_REQUEST = "delay_request"  # the request is held for `delay_s`, then sent
    # Either: every open connection is closed at once, when armed.
    CUT_LINK = "cut_link"


POSTGRES_FAULTS = frozenset(
    {Fault.DROP_AFTER_COMMIT, Fault.DROP_BEFORE_COMMIT, Fault.DELAY_COMMIT, Fault.CUT_LINK}
)
GRPC_FAULTS = frozenset(
    {Fault.LOSE_ANSWER, Fault.DROP_REQUEST, Fault.DELAY_REQUEST, Fault.CUT_LINK}
)


@dataclass(frozen=True)
class Armed:
    fault: Fault
    delay_s: float = 0.0
    # PostgreSQL only: the commit must have made one of these statements durable.
    touching: bytes = b""


@dataclass(eq=False)
class Link:
    """One client connection and the proxy's own connection to the server."""

    client: asyncio.StreamWriter
    server: asyncio.StreamWriter
    pipes: list[asyncio.Task] = field(default_factory=list)
    # Set once the client is gone but the server's answer is still awaited.
    answer_lost: bool = False

    def drop(self) -> None:
        """Both connections die at once: nothing still buffered is sent."""
        for writer in (self.client, self.server):
            writer.transport.abort()

    def lose_answers(self) -> None:
        """From now on the client hears nothing; both sides die once the
        server has answered what it was sent (see `answer_lost`), so what
        was sent surely took effect before the client sees the drop."""
        self.answer_lost = True


class FaultProxy:
    """The shared machinery; PostgresFaultProxy and GrpcFaultProxy read their
    protocol."""

    accepts: frozenset[Fault] = frozenset()

    def __init__(self, target_host: str, target_port: int) -> None:
        self._target = (target_host, target_port)
        self._flowing = asyncio.Event()
        self._flowing.set()
        self._stopped = False
        self._server: asyncio.Server | None = None
        self._links: set[Link] = set()
        self._armed: Armed | None = None
        self.injected: Counter[Fault] = Counter()
        self.port = 0

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def pending(self) -> Fault | None:
        return self._armed.fault if self._armed else None

    async def start(self):
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    def arm(self, fault: Fault, *, delay_s: float = 0.5, touching: bytes = b"") -> None:
        if fault not in self.accepts:
            raise ValueError(f"{type(self).__name__} can't inject {fault.value}")
        if fault is Fault.CUT_LINK:
            self.cut()
            self.injected[fault] += 1
            return
        self._armed = Armed(fault, delay_s, touching)

    def disarm(self) -> None:
        self._armed = None

    def cut(self) -> None:
        for link in list(self._links):
            link.drop()

    def freeze(self) -> None:
        self._flowing.clear()

    def thaw(self) -> None:
        self._flowing.set()

    def stop(self) -> None:
        """As if the server stopped: open connections close, new ones are refused."""
        self._stopped = True
        self.cut()

    def resume(self) -> None:
        self._stopped = False

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        pipes = [pipe for link in self._links for pipe in link.pipes]
        self.cut()
        for pipe in pipes:
            pipe.cancel()
        await asyncio.gather(*pipes, return_exceptions=True)

    def _take(self, wanted: frozenset[Fault], sql: list[bytes] | None = None) -> Armed | None:
        armed = self._armed
        if armed is None or armed.fault not in wanted:
            return None
        if armed.touching and sql is not None and not any(armed.touching in s for s in sql):
            return None
        self._armed = None
        return armed

    async def _accept(self, client_reader, client_writer) -> None:
        if self._stopped:
            client_writer.transport.abort()
            return
        try:
            server_reader, server_writer = await asyncio.open_connection(*self._target)
        except OSError:
            client_writer.transport.abort()
            return
        link = Link(client_writer, server_writer)
        self._links.add(link)
        link.pipes = [
            asyncio.ensure_future(self._guarded(self._from_client(link, client_reader))),
            asyncio.ensure_future(self._guarded(self._from_server(link, server_reader))),
        ]
        for pipe in link.pipes:
            pipe.add_done_callback(functools.partial(self._pipe_ended, link))

    def _pipe_ended(self, link: Link, _pipe: asyncio.Task) -> None:
        self._ended(link)

    def _ended(self, link: Link) -> None:
        if all(pipe.done() for pipe in link.pipes):
            self._links.discard(link)
        elif not link.answer_lost:
            link.drop()  # one direction ended: the other goes with it

    async def _guarded(self, pipe) -> None:
        with contextlib.suppress(ConnectionError, asyncio.CancelledError):
            await pipe

    async def _send(self, writer: asyncio.StreamWriter, data: bytes) -> None:
        await self._flowing.wait()
        writer.write(data)
        await writer.drain()

    async def _from_client(self, link: Link, reader: asyncio.StreamReader) -> None:
        raise NotImplementedError

    async def _from_server(self, link: Link, reader: asyncio.StreamReader) -> None:
        raise NotImplementedError


class PostgresFaultProxy(FaultProxy):
    accepts = POSTGRES_FAULTS
    _commit_faults = frozenset(
        {Fault.DROP_AFTER_COMMIT, Fault.DROP_BEFORE_COMMIT, Fault.DELAY_COMMIT}
    )

    def __init__(self, target_host: str, target_port: int) -> None:
        super().__init__(target_host, target_port)
        self._watches: dict[Link, tuple[pgwire.SessionWatch, pgwire.MessageSplitter]] = {}

    @classmethod
    async def for_url(cls, database_url: str) -> "PostgresFaultProxy":
        target = make_url(database_url)
        return await cls(target.host or "127.0.0.1", target.port or 5432).start()

    def url_for(self, database_url: str) -> str:
        """`database_url` with its host and port pointing at this proxy."""
        url = make_url(database_url).set(host="127.0.0.1", port=self.port)
        return url.render_as_string(hide_password=False)

    def _watch(self, link: Link) -> tuple[pgwire.SessionWatch, pgwire.MessageSplitter]:
        if link not in self._watches:
            self._watches[link] = (
                pgwire.SessionWatch(),
                pgwire.MessageSplitter(untyped_first=False),
            )
        return self._watches[link]

    def _ended(self, link: Link) -> None:
        super()._ended(link)
        if link not in self._links:
            self._watches.pop(link, None)

    async def _from_client(self, link: Link, reader: asyncio.StreamReader) -> None:
        watch, from_server = self._watch(link)
        splitter = pgwire.MessageSplitter(untyped_first=True)
        while data := await reader.read(65536):
            for message in splitter.feed(data):
                if message.kind == b"" and len(message.raw) == 8:
                    from_server.single_byte_next = True  # SSL/GSS request: 'N' or 'S'
                armed = None
                if watch.client_sends(message):
                    armed = self._take(self._commit_faults, watch.commits_sql())
                if armed is not None and armed.fault is Fault.DROP_BEFORE_COMMIT:
                    self.injected[armed.fault] += 1
                    link.drop()
                    return
                if armed is not None and armed.fault is Fault.DELAY_COMMIT:
                    self.injected[armed.fault] += 1
                    await asyncio.sleep(armed.delay_s)
                await self._send(link.server, message.raw)
                if armed is not None and armed.fault is Fault.DROP_AFTER_COMMIT:
                    self.injected[armed.fault] += 1
                    link.lose_answers()
                    return

    async def _from_server(self, link: Link, reader: asyncio.StreamReader) -> None:
        watch, splitter = self._watch(link)
        while data := await reader.read(65536):
            for message in splitter.feed(data):
                watch.server_sends(message)
                if link.answer_lost and message.kind == b"Z":
                    link.drop()  # the commit is done; its answer never reaches the client
                    return
            if not link.answer_lost:
                await self._send(link.client, data)


class GrpcFaultProxy(FaultProxy):
    """For cleartext gRPC (HTTP/2) between a caller and a service. Each call
    is one stream; a fault applies to the next stream the client opens."""

    accepts = GRPC_FAULTS

    def __init__(self, target_host: str, target_port: int) -> None:
        super().__init__(target_host, target_port)
        # Per link: the streams whose answer is to be lost.
        self._doomed: dict[Link, set[int]] = {}

    @classmethod
    async def for_address(cls, address: str) -> "GrpcFaultProxy":
        host, port = address.rsplit(":", 1)
        return await cls(host, int(port)).start()

    async def _from_client(self, link: Link, reader: asyncio.StreamReader) -> None:
        splitter = h2wire.FrameSplitter(preface=True)
        opened: set[int] = set()
        doomed = self._doomed.setdefault(link, set())
        while data := await reader.read(65536):
            for frame in splitter.feed(data):
                if frame.type == h2wire.HEADERS and frame.stream_id not in opened:
                    opened.add(frame.stream_id)
                    armed = self._take(self.accepts)
                    if armed is not None and armed.fault is Fault.DROP_REQUEST:
                        self.injected[armed.fault] += 1
                        link.drop()
                        return
                    if armed is not None and armed.fault is Fault.DELAY_REQUEST:
                        self.injected[armed.fault] += 1
                        await asyncio.sleep(armed.delay_s)
                    if armed is not None and armed.fault is Fault.LOSE_ANSWER:
                        doomed.add(frame.stream_id)
                await self._send(link.server, frame.raw)

    async def _from_server(self, link: Link, reader: asyncio.StreamReader) -> None:
        splitter = h2wire.FrameSplitter(preface=False)
        doomed = self._doomed.setdefault(link, set())
        while data := await reader.read(65536):
            for frame in splitter.feed(data):
                if frame.answers and frame.stream_id in doomed:
                    self.injected[Fault.LOSE_ANSWER] += 1
                    link.drop()
                    return
                await self._send(link.client, frame.raw)

    def _ended(self, link: Link) -> None:
        super()._ended(link)
        if link not in self._links:
            self._doomed.pop(link, None)
