"""Async SQLAlchemy 2 on psycopg 3, one PostgreSQL schema per service.

No database call may wait forever, even when the server stops
answering without closing anything (a frozen server: the kernel still
acknowledges every packet, so no TCP timeout fires):
- the server ends a statement past its statement timeout, a lock wait past
  its lock timeout, a session whose transaction sits idle past
  `db_idle_in_transaction_timeout_ms` (a hung holder's locks are freed);
- TCP keepalives and tcp_user_timeout end a connection whose peer is gone;
- and the client bounds every transaction (BoundedEngine): by the caller's
  gRPC deadline and by `db_call_timeout_s`, whichever comes first. A
  transaction cut off this way answers DEADLINE_EXCEEDED, "may have
  happened" (nodkit.status): its COMMIT may or may not have landed.

No pre-ping on checkout: it would cost a round trip per call, and a dead
connection already surfaces as UNAVAILABLE ("may have happened") and is
dropped from the pool.
"""

import asyncio
import contextlib
from collections.abc import AsyncIterator

import sqlalchemy as sa
import sqlalchemy.ext.asyncio
from psycopg.conninfo import make_conninfo
from psycopg_pool import AsyncConnectionPool
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from nodkit import context
from nodkit.settings import ServiceSettings

# libpq's own TCP settings: a connection whose peer vanished is given up
# within about 15 s instead of the kernel's default of many minutes.
TCP_SETTINGS = {
    "keepalives": 1,
    "keepalives_idle": 5,
    "keepalives_interval": 2,
    "keepalives_count": 3,
    "tcp_user_timeout": 15_000,
}


def connect_options(schema: str, settings: ServiceSettings) -> str:
    statement_timeout_ms = settings.db_statement_timeout_ms
    return (
        f"-c search_path={schema} -c statement_timeout={statement_timeout_ms}"
        f" -c lock_timeout={statement_timeout_ms}"
        " -c idle_in_transaction_session_timeout="
        f"{settings.db_idle_in_transaction_timeout_ms}"
    )


def call_deadline(limit_s: float) -> float:
    """When a database call must give up, on the loop's clock: the caller's
    deadline (a gRPC call's, see nodkit.interceptors) or `limit_s` from now."""
    own = asyncio.get_running_loop().time() + limit_s
    caller = context.deadline.get()
    return own if caller is None else min(own, caller)


class BoundedEngine(AsyncEngine):
    """An AsyncEngine whose transactions and connections are bounded in time
    (see the module's docstring). Used exactly like AsyncEngine."""

    __slots__ = ("limit_s",)

    def __init__(self, engine: AsyncEngine, limit_s: float) -> None:
        super().__init__(engine.sync_engine)
        self.limit_s = limit_s

    @contextlib.asynccontextmanager
    async def begin(self) -> AsyncIterator[AsyncConnection]:
        async with asyncio.timeout_at(call_deadline(self.limit_s)):
            async with AsyncEngine.connect(self) as conn, conn.begin():
                yield conn

    @contextlib.asynccontextmanager
    async def connect(self) -> AsyncIterator[AsyncConnection]:  # type: ignore[override]
        """Only as `async with engine.connect() as conn:` (never awaited)."""
        async with asyncio.timeout_at(call_deadline(self.limit_s)):
            async with AsyncEngine.connect(self) as conn:
                yield conn


def create_engine(settings: ServiceSettings, schema: str) -> AsyncEngine:
    # Through the module: with tracing on, nodkit.tracing wrapped it.
    engine = sqlalchemy.ext.asyncio.create_async_engine(
        settings.database_url,
        pool_size=settings.db_pool_size,
        max_overflow=0,
        # Errors and logs never quote statement parameters (sealed values at
        # worst, but an error message is no place for them).
        hide_parameters=True,
        pool_timeout=settings.db_statement_timeout_ms / 1000,
        connect_args={
            "options": connect_options(schema, settings),
            "connect_timeout": settings.db_connect_timeout_s,
            "application_name": f"nod-{schema}",
            **TCP_SETTINGS,
        },
    )
    return BoundedEngine(engine, settings.db_call_timeout_s)


def libpq_url(database_url: str) -> str:
    """The same server(s) as a libpq connection string, for psycopg used
    directly: what SQLAlchemy's psycopg dialect would connect with, so a
    URL naming several hosts (`?host=a:5432&host=b:5432&target_session_attrs=
    read-write`, a highly available pair) names them all here too."""
    url = make_url(database_url).set(drivername="postgresql+psycopg")
    _, arguments = url.get_dialect()().create_connect_args(url)
    return make_conninfo(**arguments)


async def open_hot_path_pool(
    settings: ServiceSettings, schema: str, size: int
) -> AsyncConnectionPool:
    """A plain psycopg pool in autocommit, for a service's one-statement hot
    path (the claims service's Claim). SQLAlchemy's checkout and execution
    cost more CPU than such a statement does; everything else goes through
    the engine. Same search path, timeouts and TCP settings as the engine's
    connections; its callers bound their statements with call_deadline()."""
    pool = AsyncConnectionPool(
        libpq_url(settings.database_url),
        min_size=1,
        max_size=size,
        timeout=settings.db_statement_timeout_ms / 1000,
        kwargs={
            "autocommit": True,
            "options": connect_options(schema, settings),
            "connect_timeout": settings.db_connect_timeout_s,
            "application_name": f"nod-{schema}-hot",
            **TCP_SETTINGS,
        },
        open=False,
    )
    await pool.open(wait=False)
    return pool


async def answers(engine: AsyncEngine) -> None:
    """Health's probe of the database: raises unless it answers."""
    async with engine.connect() as conn:
        await conn.execute(sa.text("SELECT 1"))
