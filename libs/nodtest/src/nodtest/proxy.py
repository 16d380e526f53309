"""A TCP proxy in front of PostgreSQL that can freeze: while frozen it keeps
every connection open and accepts new ones, but passes nothing on in either
direction — what a client sees of a database server that stopped (SIGSTOP,
a stalled disk, a half-dead host): the kernel acknowledges, nobody answers.

The proxies that read the protocol they carry and inject one fault on
command (a dropped COMMIT, a lost gRPC answer, a stopped server) are in
nodtest.fault_proxy; they are re-exported here."""

import asyncio
import contextlib

from sqlalchemy.engine import make_url

from nodtest.fault_proxy import Fault, GrpcFaultProxy, PostgresFaultProxy

__all__ = ["Fault", "FreezableProxy", "GrpcFaultProxy", "PostgresFaultProxy"]


class FreezableProxy:
    def __init__(self, target_host: str, target_port: int) -> None:
        self._target = (target_host, target_port)
        self._flowing = asyncio.Event()
        self._flowing.set()
        self._server: asyncio.Server | None = None
        self._pipes: set[asyncio.Task] = set()
        self.port = 0

    async def start(self) -> "FreezableProxy":
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    def url_for(self, database_url: str) -> str:
        """`database_url` with its host and port pointing at this proxy."""
        url = make_url(database_url).set(host="127.0.0.1", port=self.port)
        return url.render_as_string(hide_password=False)

    def freeze(self) -> None:
        self._flowing.clear()

    def thaw(self) -> None:
        self._flowing.set()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for pipe in list(self._pipes):
            pipe.cancel()
        await asyncio.gather(*self._pipes, return_exceptions=True)

    async def _accept(self, client_reader, client_writer) -> None:
        try:
            server_reader, server_writer = await asyncio.open_connection(*self._target)
        except OSError:
            client_writer.close()
            return
        pipes = [
            asyncio.ensure_future(self._pipe(client_reader, server_writer)),
            asyncio.ensure_future(self._pipe(server_reader, client_writer)),
        ]
        self._pipes.update(pipes)
        for pipe in pipes:
            pipe.add_done_callback(self._pipes.discard)

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                await self._flowing.wait()
                writer.write(data)
                await writer.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            with contextlib.suppress(Exception):
                writer.close()
