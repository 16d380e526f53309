"""`GET /metrics` on a port of the service's own (NOD_<SERVICE>_METRICS_LISTEN),
served from the service's own event loop.

A few lines of asyncio rather than prometheus_client's start_http_server:
that runs in a thread of its own, where the scrape-time database reads
(nodkit.metrics_collectors) could not use the service's async engine, and a
thread outlives SIGTERM unless someone stops it. This one closes with the
service. Plain HTTP/1.0-style: one request per connection, then it closes.

What it serves: this process's registry (RPC calls, UNCERTAIN, sweeps, model
requests, process figures) and the service's own collectors."""

import asyncio
import contextlib
from collections.abc import Iterable, Sequence

from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import Metric

from nodkit.logging import get_logger
from nodkit.metrics_collectors import Collector

log = get_logger("nodkit.metrics")

# A scraper that sends nothing, or a request line longer than this, is let go.
REQUEST_TIMEOUT_S = 10.0
MAX_HEADER_LINES = 100
PATH = "/metrics"


class _ProcessWide:
    """The process's default registry, inside this server's registry."""

    def collect(self) -> Iterable[Metric]:
        return REGISTRY.collect()


class MetricsServer:
    def __init__(self, service: str, collectors: Sequence[Collector] = ()) -> None:
        self.service = service
        self._collectors = collectors
        # No describe(): families are checked for clashes by their names in
        # the documentation, not at registration.
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(_ProcessWide())
        for collector in collectors:
            self.registry.register(collector)
        self._server: asyncio.Server | None = None
        self.port: int | None = None

    async def start(self, listen: str) -> int:
        host, _, port = listen.rpartition(":")
        self._server = await asyncio.start_server(
            self._answer, host or "0.0.0.0", int(port), reuse_address=True
        )
        self.port = self._server.sockets[0].getsockname()[1]
        log.info("metrics.listening", service=self.service, address=listen, port=self.port)
        return self.port

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    async def render(self) -> bytes:
        """The exposition text, its database figures read (or cached) first."""
        refreshing = [
            refresh() for c in self._collectors if (refresh := getattr(c, "refresh", None))
        ]
        await asyncio.gather(*refreshing)
        return generate_latest(self.registry)

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            async with asyncio.timeout(REQUEST_TIMEOUT_S):
                method, path = await _read_request(reader)
                if path.split("?", 1)[0] != PATH:
                    status, body, kind = "404 Not Found", b"not found: try /metrics\n", "text/plain"
                elif method not in ("GET", "HEAD"):
                    status, body, kind = "405 Method Not Allowed", b"GET only\n", "text/plain"
                else:
                    status, body, kind = "200 OK", await self.render(), CONTENT_TYPE_LATEST
                head = (
                    f"HTTP/1.1 {status}\r\nContent-Type: {kind}\r\n"
                    f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
                )
                writer.write(head.encode("ascii") + (b"" if method == "HEAD" else body))
                await writer.drain()
        except (TimeoutError, ConnectionError, ValueError, asyncio.IncompleteReadError):
            pass  # a scraper that went away or spoke no HTTP: nothing to answer
        except Exception as error:  # noqa: BLE001 - a scrape must never take the service down
            log.error("metrics.render_failed", service=self.service, error=type(error).__name__)
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError, OSError):
                await writer.wait_closed()


async def _read_request(reader: asyncio.StreamReader) -> tuple[str, str]:
    """The request line's method and target; the headers are read and dropped."""
    words = (await reader.readline()).decode("latin-1").split()
    if len(words) != 3:
        raise ValueError("not an HTTP request line")
    for _ in range(MAX_HEADER_LINES):
        if (await reader.readline()) in (b"\r\n", b"\n", b""):
            break
    return words[0], words[1]
