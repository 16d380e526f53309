"""Alembic, per service: the service's tables and its version table both
live inside its own schema. Migrations run as their own step
(`nod-<service> migrate`, or `python -m nod_<service> migrate`); `serve` only
waits for them.

A service's Alembic folder is package data (`nod_<service>/migrations/`), so
the service's wheel carries it and an installed service migrates with no
checkout beside it."""

import asyncio
import contextlib
import importlib.resources
import logging
import pathlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from nodkit.logging import get_logger

# Alembic is imported where it is used: a process that only names its
# migrations (a CLI, the gateway's package) does not pay for loading it.
if TYPE_CHECKING:
    from alembic.config import Config

log = get_logger("nodkit.migrations")
VERSION_TABLE = "alembic_version"


def alembic_config(migrations_dir: pathlib.Path, database_url: str, schema: str) -> "Config":
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(migrations_dir))
    config.attributes["database_url"] = database_url
    config.attributes["schema"] = schema
    return config


def upgrade_to_head(migrations_dir: pathlib.Path, database_url: str, schema: str) -> None:
    from alembic import command

    command.upgrade(alembic_config(migrations_dir, database_url, schema), "head")


def run_env(target_metadata: sa.MetaData) -> None:
    """The body of every service's migrations/env.py."""
    from alembic import context

    config = context.config
    schema = config.attributes["schema"]
    engine = sa.create_engine(config.attributes["database_url"], poolclass=sa.pool.NullPool)
    with engine.connect() as connection:
        # Replicas may migrate at once: one at a time per schema.
        connection.execute(sa.text("SELECT pg_advisory_lock(hashtext(:k))"), {"k": f"nod:{schema}"})
        connection.execute(sa.text(f'CREATE SCHEMA IF NOT EXISTS "{schema}"'))
        connection.commit()
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            version_table_schema=schema,
            include_schemas=True,
        )
        with context.begin_transaction():
            context.run_migrations()
        connection.commit()
    engine.dispose()


@contextlib.contextmanager
def _alembic_quiet() -> Iterator[None]:
    """Alembic says which dialect it assumes ("Context impl ...") each time
    a context is made: at every look of a wait, that is noise."""
    alembic_log = logging.getLogger("alembic.runtime.migration")
    level = alembic_log.level
    alembic_log.setLevel(logging.WARNING)
    try:
        yield
    finally:
        alembic_log.setLevel(level)


def _current_heads(sync_connection, schema: str) -> set[str]:
    from alembic.runtime.migration import MigrationContext

    with _alembic_quiet():
        context = MigrationContext.configure(
            sync_connection, opts={"version_table_schema": schema, "version_table": VERSION_TABLE}
        )
        return set(context.get_current_heads())


async def is_at_head(engine: AsyncEngine, migrations_dir: pathlib.Path, schema: str) -> bool:
    from alembic.script import ScriptDirectory

    wanted = set(ScriptDirectory(str(migrations_dir)).get_heads())
    async with engine.connect() as connection:
        current = await connection.run_sync(_current_heads, schema)
    return current == wanted


async def wait_until_at_head(
    engine: AsyncEngine, migrations_dir: pathlib.Path, schema: str, poll_s: float
) -> None:
    """Looks every poll_s; says so once when it starts waiting (and again
    only when why it waits changes), and once when the wait is over."""
    waiting_for: str | None = None
    while True:
        try:
            if await is_at_head(engine, migrations_dir, schema):
                break
            why = "migrations.behind"
            fields = {"schema": schema}
        except (sa.exc.OperationalError, sa.exc.InterfaceError) as error:
            why = "migrations.database_unreachable"
            fields = {"schema": schema, "error": type(error).__name__}
        if why != waiting_for:
            log.warning(why, **fields, looking_every_s=poll_s)
            waiting_for = why
        await asyncio.sleep(poll_s)
    if waiting_for is not None:
        log.info("migrations.caught_up", schema=schema)


def package_folder(package: str, folder: str = "migrations") -> pathlib.Path:
    """`folder` inside the installed `package`, as a real directory: Alembic
    reads its scripts by path, so a package imported from a zip can't migrate
    (nod's wheels install as plain files)."""
    found = importlib.resources.files(package) / folder
    if not isinstance(found, pathlib.Path) or not found.is_dir():
        raise RuntimeError(f"{package} has no {folder}/ folder installed beside it: {found}")
    return found


@dataclass(frozen=True)
class Migrations:
    """A service's schema and the package whose `migrations/` folder holds
    its Alembic scripts."""

    schema: str
    package: str

    @property
    def directory(self) -> pathlib.Path:
        return package_folder(self.package)

    def upgrade(self, database_url: str) -> None:
        upgrade_to_head(self.directory, database_url, self.schema)

    async def wait_until_at_head(self, engine: AsyncEngine, poll_s: float) -> None:
        await wait_until_at_head(engine, self.directory, self.schema, poll_s)
