"""`nod-<service> serve | migrate` (or `python -m nod_<service> ...`), the same
for every service."""

import argparse
import gc
from collections.abc import Awaitable, Callable
from typing import TypeVar

import uvloop

from nodkit import faults, tracing
from nodkit.logging import configure_logging, get_logger
from nodkit.migrations import Migrations
from nodkit.service import Service, serve
from nodkit.settings import ServiceSettings

S = TypeVar("S", bound=ServiceSettings)


def main(
    name: str,
    settings_class: type[S],
    build: Callable[[S], Awaitable[Service]],
    *,
    migrations: Migrations | None,
) -> int:
    """A service without a database (the browser runner) has no migrations:
    `migrate` then has nothing to do."""
    parser = argparse.ArgumentParser(prog=f"nod-{name}")
    parser.add_argument("command", choices=["serve", "migrate"])
    args = parser.parse_args()
    settings = settings_class()
    configure_logging(
        name, level=settings.log_level, fmt=settings.log_format, color=settings.log_color
    )
    log = get_logger(f"nod_{name}")
    if args.command == "migrate":
        if migrations is None:
            log.info("migrations.none", service=name)
        else:
            migrations.upgrade(settings.database_url)
            log.info("migrations.at_head", schema=migrations.schema)
        return 0

    faults.arm(settings.faults)
    tracing.configure(name, settings.otlp_endpoint)

    async def run() -> None:
        service = await build(settings)
        # Everything loaded so far lives as long as the process: keep the
        # cyclic collector from walking it again on every collection.
        gc.freeze()
        await serve(service, settings)

    try:
        uvloop.run(run())
    finally:
        tracing.shutdown()
    return 0
