"""`nod-<service> serve | migrate` (or `python -m nod_<service> ...`), the same
for every service."""

import argparse
import gc
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TypeVar

import uvloop
from pydantic import ValidationError
from sqlalchemy.exc import OperationalError

from nodkit import faults, startup, tracing
from nodkit.logging import configure_logging, get_logger
from nodkit.migrations import Migrations
from nodkit.service import Service, serve
from nodkit.settings import ServiceSettings

S = TypeVar("S", bound=ServiceSettings)
# A command of one service's own beside serve and migrate: what --help says
# of it, and what runs it with the arguments after its name.
Extra = tuple[str, Callable[[Sequence[str]], int]]


def main(
    name: str,
    settings_class: type[S],
    build: Callable[[S], Awaitable[Service]],
    *,
    migrations: Migrations | None,
    extra: Mapping[str, Extra] | None = None,
    argv: Sequence[str] | None = None,
) -> int:
    """A service without a database (the browser runner) has no migrations:
    `migrate` then has nothing to do. A mistake in how it was started (a
    setting, the database, the browser) is one line and a non-zero exit.
    `extra`: the service's own commands (claims' drop-unreadable), listed
    by --help beside serve and migrate and parsed by themselves."""
    extra = extra or {}
    listed = ["serve: answer calls until stopped", "migrate: bring the schema to head"]
    listed += [f"{command}: {said}" for command, (said, _) in extra.items()]
    parser = argparse.ArgumentParser(
        prog=f"nod-{name}",
        description="Commands: " + "; ".join(listed) + ".",
        epilog=f"nod-{name} COMMAND --help says more of a command of its own.",
    )
    parser.add_argument("command", choices=["serve", "migrate", *extra])
    parser.add_argument("arguments", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.command in extra:
        return extra[args.command][1](args.arguments)
    if args.arguments:
        parser.error(f"{args.command} takes no arguments: {' '.join(args.arguments)}")
    command = f"nod-{name}"
    try:
        settings = settings_class()
    except ValidationError as error:
        line = startup.settings_problem(error, settings_class)
        return startup.fail(command, line, startup.BAD_SETTING)
    try:
        return _run(name, args.command, settings, build, migrations)
    except startup.StartupError as error:
        return startup.fail(command, str(error), startup.MISSING_DEPENDENCY)
    except OperationalError as error:
        line = startup.database_problem(error, settings.database_url)
        return startup.fail(command, line, startup.MISSING_DEPENDENCY)


def _run(
    name: str,
    command: str,
    settings: S,
    build: Callable[[S], Awaitable[Service]],
    migrations: Migrations | None,
) -> int:
    configure_logging(
        name, level=settings.log_level, fmt=settings.log_format, color=settings.log_color
    )
    log = get_logger(f"nod_{name}")
    if command == "migrate":
        if migrations is None:
            log.info("migrations.none", service=name)
        else:
            migrations.upgrade(settings.database_url)
            log.info("migrations.at_head", schema=migrations.schema)
        return 0

    faults.arm(settings.faults)
    tracing.configure(name, settings.otlp_endpoint)
    if migrations is not None:
        # A database that isn't there (or refuses us) is a mistake to say at
        # once; one that is only slow to come up is waited for (serve's boot).
        startup.check_database(settings.database_url)

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
