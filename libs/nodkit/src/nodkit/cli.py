"""`python -m nod_<service> serve | migrate` for every service."""

import argparse
import gc
import pathlib
from collections.abc import Awaitable, Callable

import uvloop
from sqlalchemy.ext.asyncio import AsyncEngine

from nodkit.db import create_engine
from nodkit.logging import configure_logging, get_logger
from nodkit.migrations import upgrade_to_head
from nodkit.settings import ServiceSettings


def run_service_command(
    service: str,
    settings_class: type[ServiceSettings],
    *,
    schema: str | None,
    migrations_dir: pathlib.Path | None,
    serve: Callable[[ServiceSettings, AsyncEngine | None], Awaitable[None]],
) -> int:
    """A service without a database (the browser runner) passes schema=None:
    `migrate` then has nothing to do and serve() gets no engine."""
    parser = argparse.ArgumentParser(prog=f"python -m nod_{service}")
    parser.add_argument("command", choices=["serve", "migrate"])
    args = parser.parse_args()
    settings = settings_class()
    configure_logging(service, level=settings.log_level, fmt=settings.log_format)
    log = get_logger(f"nod_{service}")
    if args.command == "migrate":
        if schema is None or migrations_dir is None:
            log.info("migrations.none", service=service)
            return 0
        upgrade_to_head(migrations_dir, settings.database_url, schema)
        log.info("migrations.at_head", schema=schema)
        return 0

    async def main() -> None:
        # Everything loaded so far lives as long as the process: keep the
        # cyclic collector from walking it again on every collection.
        gc.freeze()
        engine = create_engine(settings, schema) if schema else None
        try:
            await serve(settings, engine)
        finally:
            if engine is not None:
                await engine.dispose()

    uvloop.run(main())
    return 0
