"""Async SQLAlchemy 2 on psycopg 3, one PostgreSQL schema per service.

Every connection gets the service's schema as its search path and a
statement timeout, so no database call can wait forever (STYLE.md 4).

No pre-ping on checkout: it would cost a round trip per call, and a dead
connection already surfaces as UNAVAILABLE ("may have happened") and is
dropped from the pool.
"""

import sqlalchemy as sa
from psycopg_pool import AsyncConnectionPool
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from nodkit.settings import ServiceSettings


def connect_options(schema: str, statement_timeout_ms: int) -> str:
    return (
        f"-c search_path={schema} -c statement_timeout={statement_timeout_ms}"
        f" -c lock_timeout={statement_timeout_ms}"
        f" -c idle_in_transaction_session_timeout={statement_timeout_ms * 4}"
    )


def create_engine(settings: ServiceSettings, schema: str) -> AsyncEngine:
    return create_async_engine(
        settings.database_url,
        pool_size=settings.db_pool_size,
        max_overflow=0,
        # Errors and logs never quote statement parameters (sealed values at
        # worst, but an error message is no place for them).
        hide_parameters=True,
        pool_timeout=settings.db_statement_timeout_ms / 1000,
        connect_args={
            "options": connect_options(schema, settings.db_statement_timeout_ms),
            "connect_timeout": settings.db_connect_timeout_s,
            "application_name": f"nod-{schema}",
        },
    )


def libpq_url(database_url: str) -> str:
    """The same server as a plain libpq URL (no SQLAlchemy driver name)."""
    return make_url(database_url).set(drivername="postgresql").render_as_string(hide_password=False)


async def open_hot_path_pool(
    settings: ServiceSettings, schema: str, size: int
) -> AsyncConnectionPool:
    """A plain psycopg pool in autocommit, for a service's one-statement hot
    path (the claims service's Claim). SQLAlchemy's checkout and execution
    cost more CPU than such a statement does; everything else goes through
    the engine. Same search path and timeouts as the engine's connections."""
    pool = AsyncConnectionPool(
        libpq_url(settings.database_url),
        min_size=1,
        max_size=size,
        timeout=settings.db_statement_timeout_ms / 1000,
        kwargs={
            "autocommit": True,
            "options": connect_options(schema, settings.db_statement_timeout_ms),
            "connect_timeout": settings.db_connect_timeout_s,
            "application_name": f"nod-{schema}-hot",
        },
        open=False,
    )
    await pool.open(wait=False)
    return pool


async def answers(engine: AsyncEngine) -> None:
    """Health's probe of the database: raises unless it answers."""
    async with engine.connect() as conn:
        await conn.execute(sa.text("SELECT 1"))
