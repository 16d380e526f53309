"""Async SQLAlchemy 2 on psycopg 3, one PostgreSQL schema per service.

Every connection gets the service's schema as its search path and a
statement timeout, so no database call can wait forever (STYLE.md 4).
"""

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
        pool_timeout=settings.db_statement_timeout_ms / 1000,
        pool_pre_ping=True,
        connect_args={
            "options": connect_options(schema, settings.db_statement_timeout_ms),
            "connect_timeout": settings.db_connect_timeout_s,
            "application_name": f"nod-{schema}",
        },
    )
