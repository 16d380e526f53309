"""A fresh PostgreSQL database per test session.

NOD_TEST_DATABASE_URL names the server (default: the local one). If it does
not answer, the session fails: a missing database is never a skip.
"""

import contextlib
import os
import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
from sqlalchemy.engine import make_url

from nodtest import observed

DEFAULT_ADMIN_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"


def admin_url() -> str:
    return os.environ.get("NOD_TEST_DATABASE_URL", DEFAULT_ADMIN_URL)


def _libpq(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def create_test_database() -> str:
    name = f"nod_test_{uuid.uuid4().hex[:12]}"
    try:
        with psycopg.connect(_libpq(admin_url()), autocommit=True, connect_timeout=5) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
    except psycopg.OperationalError as error:
        raise RuntimeError(
            f"PostgreSQL is required for the tests and did not answer at {admin_url()}: {error}"
        ) from error
    return make_url(admin_url()).set(database=name).render_as_string(hide_password=False)


def drop_test_database(url: str) -> None:
    name = make_url(url).database
    with psycopg.connect(_libpq(admin_url()), autocommit=True, connect_timeout=5) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def libpq_url(url: str) -> str:
    return _libpq(url)


@contextlib.contextmanager
def migrated_database(migrations: Any) -> Iterator[str]:
    """A database of a test's own at the head of `migrations` (a service's
    MIGRATIONS); its rows are kept for the private-value scan before it is
    dropped."""
    url = create_test_database()
    try:
        migrations.upgrade(url)
        yield url
    finally:
        observed.keep_database(libpq_url(url))
        drop_test_database(url)


def migration_drift(url: str, metadata, schema: str) -> list:
    """What Alembic's autogenerate would still add or change in `schema` for
    `metadata`: empty when the migrations match the models."""
    import sqlalchemy as sa
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(
                conn,
                opts={
                    "include_schemas": True,
                    "version_table_schema": schema,
                    "include_name": lambda name, kind, _p: kind != "schema" or name == schema,
                },
            )
            return compare_metadata(context, metadata)
    finally:
        engine.dispose()
