"""nod-gateway serve | migrate | add-person NAME --password-file PATH (or python -m nod_gateway)"""

import argparse
import asyncio
import logging
import os
import pathlib
import secrets
import socket
import sys

import uvicorn
from pydantic import ValidationError
from sqlalchemy.exc import OperationalError

from nod_gateway import MIGRATIONS
from nod_gateway.app import create_app
from nod_gateway.people import passwords, store
from nod_gateway.settings import GatewaySettings
from nodkit import faults, startup, tracing
from nodkit.db import create_engine
from nodkit.logging import configure_logging, get_logger
from nodkit.settings import SettingFileError
from nodkit.version import release


class Server(uvicorn.Server):
    """uvicorn's server, whose start and stop print a line each, as every
    service's do (uvicorn's own lines are quieted in serve)."""

    def __init__(self, config: uvicorn.Config, address: str) -> None:
        super().__init__(config)
        self._address = address

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            get_logger("nod_gateway").info(
                "server.serving",
                service="gateway",
                address=f"http://{self._address}",
                version=release("gateway"),
            )

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        log = get_logger("nod_gateway")
        log.info(
            "server.shutting_down", service="gateway", grace_s=self.config.timeout_graceful_shutdown
        )
        await super().shutdown(sockets)
        # Requests finished (or cut off at the grace) and the app's lifespan ended.
        log.info("server.stopped", service="gateway")


def serve(settings: GatewaySettings) -> None:
    faults.arm(settings.faults)
    tracing.configure("gateway", settings.otlp_endpoint)
    # uvicorn's own start-up lines ("Started server process", "Waiting for
    # application startup", ...) give way to the one above; its warnings stay.
    logging.getLogger("uvicorn.error").setLevel(logging.WARNING)
    host, _, port = settings.listen.rpartition(":")
    config = uvicorn.Config(
        create_app(settings),
        host=host or "0.0.0.0",
        port=int(port),
        loop="uvloop",
        log_config=None,  # nodkit's structured, redacted logging
        access_log=False,  # web/metrics.py logs each request as `http.request`
        timeout_graceful_shutdown=int(settings.shutdown_grace_s),
        # The app reads forwarded headers itself, from the proxies it trusts
        # alone (client_address.py); uvicorn's default trusts loopback.
        proxy_headers=False,
    )
    try:
        Server(config, settings.listen).run()
    finally:
        tracing.shutdown()


def password_from(path: pathlib.Path) -> str:
    """The file's password, or a new one written there readable by its owner only."""
    if path.exists():
        return path.read_text().strip()
    password = secrets.token_urlsafe(15)
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(password + "\n")
    return password


async def add_person(settings: GatewaySettings, name: str, password: str) -> None:
    engine = create_engine(settings, MIGRATIONS.schema)
    try:
        hashed = await asyncio.to_thread(passwords.hash_password, password)
        await store.add_person(engine, name, hashed, replace=True)
    finally:
        await engine.dispose()


def main() -> int:
    parser = argparse.ArgumentParser(prog="nod-gateway")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("serve")
    commands.add_parser("migrate")
    adding = commands.add_parser("add-person", help="add a person, or set their password")
    adding.add_argument("name")
    adding.add_argument(
        "--password-file",
        type=pathlib.Path,
        required=True,
        help="read the password from here; if the file is missing, a new password is made"
        " and written there (mode 0600)",
    )
    args = parser.parse_args()
    try:
        settings = GatewaySettings()
    except ValidationError as error:
        line = startup.settings_problem(error, GatewaySettings)
        return startup.fail("nod-gateway", line, startup.BAD_SETTING)
    except SettingFileError as error:  # NOD_GATEWAY_SMTP_PASSWORD_FILE unreadable, say
        return startup.fail("nod-gateway", str(error), startup.BAD_SETTING)
    try:
        return _run(args, settings)
    except OperationalError as error:
        line = startup.database_problem(error, settings.database_url)
        return startup.fail("nod-gateway", line, startup.MISSING_DEPENDENCY)


def _run(args: argparse.Namespace, settings: GatewaySettings) -> int:
    configure_logging(
        "gateway", level=settings.log_level, fmt=settings.log_format, color=settings.log_color
    )
    log = get_logger("nod_gateway")
    if args.command == "migrate":
        MIGRATIONS.upgrade(settings.database_url)
        log.info("migrations.at_head", schema=MIGRATIONS.schema)
    elif args.command == "add-person":
        password = password_from(args.password_file)
        if not passwords.MIN_LENGTH <= len(password) <= passwords.MAX_LENGTH:
            sys.exit(f"the password must be {passwords.MIN_LENGTH} to 1024 characters")
        asyncio.run(add_person(settings, args.name, password))
        log.info("gateway.person_added", name=args.name)
    else:
        startup.check_database(settings.database_url)
        serve(settings)
    return 0


if __name__ == "__main__":
    sys.exit(main())
