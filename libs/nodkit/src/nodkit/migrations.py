"""Alembic, per service: the service's tables and its version table both
live inside its own schema. Migrations run as their own step
(`nod-<service> migrate`, or `python -m nod_<service> migrate`); `serve` only
waits for them.

A service's Alembic folder is package data (`nod_<service>/migrations/`), so
the service's wheel carries it and an installed service migrates with no
checkout beside it."""

import asyncio
import importlib.resources
import pathlib
from dataclasses import dataclass

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.ext.asyncio import AsyncEngine

from nodkit.logging import get_logger

log = get_logger("nodkit.migrations")
VERSION_TABLE = "alembic_version"


def alembic_config(migrations_dir: pathlib.Path, database_url: str, schema: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(migrations_dir))
    config.attributes["database_url"] = database_url
    config.attributes["schema"] = schema
    return config


def upgrade_to_head(migrations_dir: pathlib.Path, database_url: str, schema: str) -> None:
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


def _current_heads(sync_connection, schema: str) -> set[str]:
    context = MigrationContext.configure(
        sync_connection, opts={"version_table_schema": schema, "version_table": VERSION_TABLE}
    )
    return set(context.get_current_heads())


async def is_at_head(engine: AsyncEngine, migrations_dir: pathlib.Path, schema: str) -> bool:
    wanted = set(ScriptDirectory(str(migrations_dir)).get_heads())
    async with engine.connect() as connection:
        current = await connection.run_sync(_current_heads, schema)
    return current == wanted


async def wait_until_at_head(
    engine: AsyncEngine, migrations_dir: pathlib.Path, schema: str, poll_s: float
) -> None:
    while True:
        try:
            if await is_at_head(engine, migrations_dir, schema):
                return
            log.warning("migrations.behind", schema=schema, retry_in_s=poll_s)
        except (sa.exc.OperationalError, sa.exc.InterfaceError) as error:
            log.warning(
                "migrations.database_unreachable", error=type(error).__name__, retry_in_s=poll_s
            )
        await asyncio.sleep(poll_s)


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
