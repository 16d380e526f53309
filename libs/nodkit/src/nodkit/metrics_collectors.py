"""Figures read when Prometheus scrapes, rather than counted as things happen.

What lives in the database (records by state, the tasks queue) is read by
DatabaseFigures at most once per `cache_s` and within `timeout_s`, both on
the client (asyncio) and on the server (statement_timeout): a scrape every
few seconds from several Prometheus servers costs one short read, and a
slow or down database costs a scrape nothing but those figures (a failed
read counts in nod_metrics_read_failures_total and leaves the figures out
rather than serving stale ones). What lives in memory (pools, sessions) is
read on every scrape, synchronously.

A collector here may have an async `refresh()`: the metrics server awaits it
before it renders, on the service's own event loop, so reads use the
service's own engine.
"""

import asyncio
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

import sqlalchemy as sa
from prometheus_client import Counter
from prometheus_client.core import GaugeMetricFamily, Metric
from psycopg_pool import AsyncConnectionPool
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from nodkit.logging import get_logger

log = get_logger("nodkit.metrics")

READ_FAILURES = Counter(
    "nod_metrics_read_failures",
    "Scrape-time database reads that failed or timed out, by service",
    ["service"],
)


class Collector(Protocol):
    def collect(self) -> Iterable[Metric]: ...


@dataclass(frozen=True)
class StateCount:
    """Count `table`'s rows by their `state` column as `record`; every state
    in `states` is reported, 0 when no row has it, so an alert on a state
    has a series to look at before its first row."""

    record: str
    table: sa.Table
    states: tuple[str, ...]  # a StrEnum's members will do


@dataclass(frozen=True)
class Queue:
    """Rows of `table` matching `waiting`, and the age of the oldest by `since`."""

    name: str
    table: sa.Table
    waiting: sa.ColumnElement[bool]
    since: sa.ColumnElement


class DatabaseFigures:
    def __init__(
        self,
        service: str,
        engine: AsyncEngine,
        *,
        states: Sequence[StateCount] = (),
        queues: Sequence[Queue] = (),
        cache_s: float = 5.0,
        timeout_s: float = 2.0,
    ) -> None:
        self._service = service
        self._engine = engine
        self._states = states
        self._queues = queues
        self._cache_s = cache_s
        self._timeout_s = timeout_s
        self._families: list[Metric] = []
        self._read_at: float | None = None
        self._reading: asyncio.Future[None] | None = None

    async def refresh(self) -> None:
        """Reads again once the last read is older than cache_s; scrapes
        arriving meanwhile wait for the same read rather than start their own."""
        if self._read_at is not None and time.monotonic() - self._read_at < self._cache_s:
            return
        if self._reading is None or self._reading.done():
            self._reading = asyncio.ensure_future(self._read())
        # A scrape that gives up (its connection closed) leaves the read to finish.
        await asyncio.shield(self._reading)

    async def _read(self) -> None:
        try:
            async with asyncio.timeout(self._timeout_s):
                async with self._engine.connect() as conn:
                    await conn.execute(
                        sa.text(f"SET LOCAL statement_timeout = {int(self._timeout_s * 1000)}")
                    )
                    families = [
                        *await self._read_states(conn),
                        *await self._read_queues(conn),
                    ]
        except Exception as error:  # noqa: BLE001 - a scrape must never fail the service
            READ_FAILURES.labels(self._service).inc()
            log.warning("metrics.read_failed", service=self._service, error=type(error).__name__)
            families = []
        self._families = families
        self._read_at = time.monotonic()

    async def _read_states(self, conn: AsyncConnection) -> list[Metric]:
        if not self._states:
            return []
        family = GaugeMetricFamily(
            "nod_records",
            "Records by state, read from the database (cached a few seconds)",
            labels=["service", "record", "state"],
        )
        for count in self._states:
            table = count.table
            query = sa.select(table.c.state, sa.func.count()).group_by(table.c.state)
            found = {state: number for state, number in await conn.execute(query)}
            for state in dict.fromkeys([*map(str, count.states), *found]):
                family.add_metric([self._service, count.record, state], found.get(state, 0))
        return [family]

    async def _read_queues(self, conn: AsyncConnection) -> list[Metric]:
        if not self._queues:
            return []
        depth = GaugeMetricFamily(
            "nod_queue_depth", "Records waiting in a queue", labels=["service", "queue"]
        )
        oldest = GaugeMetricFamily(
            "nod_queue_oldest_age_seconds",
            "How long the oldest record in a queue has waited (0 when it is empty)",
            labels=["service", "queue"],
        )
        for queue in self._queues:
            query = sa.select(
                sa.func.count(),
                sa.func.coalesce(
                    sa.func.extract("epoch", sa.func.now() - sa.func.min(queue.since)), 0
                ),
            ).where(queue.waiting)
            waiting, age = (await conn.execute(query)).one()
            depth.add_metric([self._service, queue.name], waiting)
            oldest.add_metric([self._service, queue.name], max(float(age), 0.0))
        return [depth, oldest]

    def collect(self) -> Iterable[Metric]:
        return list(self._families)


class DatabasePools:
    """Connections in use and beyond the pool's size, per pool. `waiting`
    (callers queued for a connection) only where the pool says: psycopg's
    pool does; SQLAlchemy's QueuePool keeps no count of its waiters."""

    def __init__(
        self,
        service: str,
        engine: AsyncEngine | None = None,
        hot_path: AsyncConnectionPool | None = None,
    ) -> None:
        self._service = service
        self._engine = engine
        self._hot_path = hot_path

    def collect(self) -> Iterable[Metric]:
        labels = ["service", "pool"]
        in_use = GaugeMetricFamily(
            "nod_db_pool_in_use", "Database connections checked out of the pool", labels=labels
        )
        overflow = GaugeMetricFamily(
            "nod_db_pool_overflow",
            "Connections open beyond the pool's size (SQLAlchemy's overflow)",
            labels=labels,
        )
        size = GaugeMetricFamily("nod_db_pool_size", "The pool's configured size", labels=labels)
        waiting = GaugeMetricFamily(
            "nod_db_pool_waiting", "Callers waiting for a connection", labels=labels
        )
        if self._engine is not None:
            pool = self._engine.sync_engine.pool
            key = [self._service, "engine"]
            in_use.add_metric(key, getattr(pool, "checkedout", lambda: 0)())
            # QueuePool's overflow counts from -size: negative while below it.
            overflow.add_metric(key, max(getattr(pool, "overflow", lambda: 0)(), 0))
            size.add_metric(key, getattr(pool, "size", lambda: 0)())
        if self._hot_path is not None:
            stats = self._hot_path.get_stats()
            key = [self._service, "hot_path"]
            in_use.add_metric(key, stats.get("pool_size", 0) - stats.get("pool_available", 0))
            size.add_metric(key, self._hot_path.max_size)
            waiting.add_metric(key, stats.get("requests_waiting", 0))
        return [in_use, overflow, size, waiting]


class Reading:
    """One gauge read from memory on every scrape (browser sessions open)."""

    def __init__(
        self, name: str, documentation: str, service: str, read: Callable[[], float]
    ) -> None:
        self._name = name
        self._documentation = documentation
        self._service = service
        self._read = read

    def collect(self) -> Iterable[Metric]:
        family = GaugeMetricFamily(self._name, self._documentation, labels=["service"])
        family.add_metric([self._service], self._read())
        return [family]
