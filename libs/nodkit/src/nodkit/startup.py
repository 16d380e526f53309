"""A mistake in how a service was started, told in one line.

A setting that is wrong, a database that is not there, a browser that is
not installed: each is the operator's to fix, and a 60-line traceback hides
the one thing they need. So every service's command (nodkit.cli) and the
gateway's turn such a mistake into one line on stderr naming the variable,
what was wrong and what to do, and exit non-zero at start, not at first use
(a crash-looping pod says the same line in its log). Values are never
repeated back: a setting may be a secret or a URL with a password.

The vault's keys are checked at start too (check_vault_keys): a service
whose database holds values sealed under a key NOD_VAULT_KEY does not list
would show them as saved and fail only when they are used, so it refuses
to start instead, naming the keys. Values whose key is lost for good are
dropped only by the one-shot `drop-unreadable` command (nodctl vault
drop-unreadable runs each service's), never by a setting left on.
"""

import argparse
import asyncio
import json
import re
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import sqlalchemy as sa
from pydantic import AliasChoices, ValidationError
from pydantic_settings import BaseSettings
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from nodkit.crypto import Sealer
from nodkit.db import create_engine
from nodkit.logging import configure_logging
from nodkit.migrations import is_at_head
from nodkit.resealing import SealedTable

# Exit codes: the command was started wrong (a setting) or a dependency
# (the database, the browser) is not as the settings say.
BAD_SETTING = 2
MISSING_DEPENDENCY = 1


class StartupError(Exception):
    """A mistake found at start; its message is the whole line printed."""


def variable_of(settings_class: type[BaseSettings], field: str) -> str:
    """The environment variable a settings field is read from (pydantic
    names an aliased field by its alias: that is the variable)."""
    if field.upper().startswith("NOD_"):
        return field.upper()
    info = settings_class.model_fields.get(field)
    alias = info.validation_alias if info is not None else None
    if isinstance(alias, AliasChoices):
        return str(alias.choices[0]).upper()
    if isinstance(alias, str):
        return alias.upper()
    prefix = settings_class.model_config.get("env_prefix", "")
    return f"{prefix}{field}".upper()


def _said(message: str) -> str:
    """pydantic's message, as a sentence about the variable."""
    message = message.removeprefix("Value error, ")
    replacements = {
        "Field required": "is required",
        "Input should be ": "must be ",
        "input should be ": "must be ",
    }
    for theirs, ours in replacements.items():
        message = message.replace(theirs, ours)
    if message.startswith("NOD_"):  # a message that names its variables keeps them
        return message
    return message[:1].lower() + message[1:]


def settings_problem(error: ValidationError, settings_class: type[BaseSettings]) -> str:
    """Every wrong setting, each naming its variable, in one line."""
    parts = []
    for each in error.errors(include_input=False, include_url=False):
        location = [str(part) for part in each["loc"]]
        if location:
            parts.append(f"{variable_of(settings_class, location[0])} {_said(each['msg'])}")
        else:  # a rule over several settings names them in its message
            parts.append(_said(each["msg"]))
    return "; ".join(parts)


def _where(url: str) -> str:
    try:
        parsed = make_url(url)
    except ArgumentError:
        return "the server in NOD_DATABASE_URL"
    return f"{parsed.host or 'localhost'}:{parsed.port or 5432}/{parsed.database or ''}"


def database_problem(error: OperationalError, url: str) -> str:
    """What a failed connection says about NOD_DATABASE_URL, and what to do."""
    said = str(error.orig or error)
    where = _where(url)
    if "does not exist" in said and "database" in said:
        return (
            f"NOD_DATABASE_URL names a database that does not exist ({where}):"
            " create it (createdb) or name another"
        )
    if "password authentication failed" in said or "no password supplied" in said:
        return (
            f"NOD_DATABASE_URL: the server at {where} refused its user and password;"
            " put the right ones in NOD_DATABASE_URL_FILE"
        )
    if "role" in said and "does not exist" in said:
        return f"NOD_DATABASE_URL names a user the server at {where} does not have"
    return (
        f"NOD_DATABASE_URL: no PostgreSQL answers at {where};"
        " start it, or point NOD_DATABASE_URL at one that runs"
    )


# What a server says when it is there but will never take these settings;
# anything else (refused, a timeout) may be a server still coming up.
_PERMANENT = ("does not exist", "authentication failed", "no password supplied")


def check_database(url: str, timeout_s: float = 5.0) -> None:
    """Raises OperationalError when the database can never be used as set
    (it does not exist, the user is refused); returns when it answers, or
    when it may only be slow to come up (serve's boot waits for it)."""
    engine = sa.create_engine(
        url, poolclass=sa.pool.NullPool, connect_args={"connect_timeout": max(1, int(timeout_s))}
    )
    try:
        with engine.connect():
            pass
    except OperationalError as error:
        if any(sign in str(error.orig or error) for sign in _PERMANENT):
            raise
    finally:
        engine.dispose()


def fail(command: str, line: str, code: int) -> int:
    """Prints the mistake's one line; the exit code to return."""
    print(f"{command}: {line}", file=sys.stderr)
    return code


# -- the vault's keys ---------------------------------------------------------

# The function each sealing service's migration made in its own schema: the
# key ids a sealed column's values name (`id:...`), sorted, as text[]; each
# sealed table has an index on it.
KEY_IDS_FUNCTION = "sealed_key_ids"
# A key id as NOD_VAULT_KEY names one; anything else found where a key id
# should be is never printed (it could be a value stored unsealed).
_KEY_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+/=-]{0,63}")
NOT_A_KEY_ID = "(no key id)"
DROP_UNREADABLE = "drop-unreadable"
DROP_UNREADABLE_HELP = (
    "drop what is sealed under vault keys lost for good (--key ID); usually run through"
    " `nodctl vault drop-unreadable`"
)


def key_ids_of(sealed: SealedTable) -> sa.ColumnElement:
    """The sorted key ids of a row's sealed values, as its index has them."""
    function = getattr(getattr(sa.func, str(sealed.table.schema)), KEY_IDS_FUNCTION)
    return function(sealed.table.c[sealed.sealed_column], type_=ARRAY(sa.Text))


async def key_id_sets(conn: AsyncConnection, sealed: SealedTable) -> list[tuple[str, ...]]:
    """Every distinct set of key ids `sealed`'s rows name, read through its
    index a step per set (a loose index scan): a few milliseconds whatever
    the table's size, as there are only ever a few sets."""
    key_ids = key_ids_of(sealed)
    compiled = key_ids.compile(dialect=conn.dialect)
    table = f'"{sealed.table.schema}"."{sealed.table.name}"'
    statement = sa.text(
        f"""
        WITH RECURSIVE found(key_ids) AS (
            (SELECT {compiled} FROM {table} WHERE {compiled} IS NOT NULL ORDER BY 1 LIMIT 1)
            UNION ALL
            SELECT (
                SELECT {compiled} FROM {table} WHERE {compiled} > found.key_ids
                ORDER BY 1 LIMIT 1
            )
            FROM found WHERE found.key_ids IS NOT NULL
        )
        SELECT key_ids FROM found WHERE key_ids IS NOT NULL
        """
    )
    return [tuple(row[0]) for row in await conn.execute(statement)]


async def held_key_ids(
    conn: AsyncConnection, tables: Sequence[SealedTable]
) -> dict[str, list[str]]:
    """Each key id the sealed tables' values name: the tables naming it."""
    held: dict[str, list[str]] = {}
    for sealed in tables:
        for key_id in sorted({k for ids in await key_id_sets(conn, sealed) for k in ids}):
            held.setdefault(key_id, []).append(sealed.name)
    return held


async def sealed_with(
    conn: AsyncConnection, sealed: SealedTable, key_ids: Sequence[str]
) -> sa.ColumnElement[bool] | None:
    """Where `sealed`'s rows naming any of `key_ids` are (through its
    index, a distinct set at a time); None when no row names one."""
    wanted = set(key_ids)
    sets = [ids for ids in await key_id_sets(conn, sealed) if wanted & set(ids)]
    if not sets:
        return None
    column = key_ids_of(sealed)
    return sa.or_(*(column == sa.cast(list(ids), ARRAY(sa.Text)) for ids in sets))


def _shown(key_id: str) -> str:
    return key_id if _KEY_ID.fullmatch(key_id) else NOT_A_KEY_ID


def unknown_keys_problem(unknown: dict[str, list[str]]) -> str:
    """The one line for values sealed under keys the ring does not list."""
    shown = {_shown(key_id): where for key_id, where in sorted(unknown.items())}
    named = ", ".join(f"{key_id} ({', '.join(where)})" for key_id, where in shown.items())
    flags = " ".join(f"--key {key_id}" for key_id in shown if key_id != NOT_A_KEY_ID)
    line = (
        f"the database holds values sealed with vault key(s) {named} that NOD_VAULT_KEY"
        " does not have; set NOD_VAULT_KEY to include them (retired keys may stay listed)"
    )
    if flags:
        line += f", or drop those values with 'nodctl vault {DROP_UNREADABLE} {flags}'"
    return line


async def check_vault_keys(
    engine: AsyncEngine, sealer: Sealer, tables: Sequence[SealedTable]
) -> None:
    """Raises StartupError when a sealed table holds values under a key id
    the ring does not list. Run at boot, once the migrations are at head
    (the index it reads is theirs); an empty database passes."""
    async with engine.connect() as conn:
        held = await held_key_ids(conn, tables)
    unknown = {key_id: where for key_id, where in held.items() if key_id not in sealer.key_ids}
    if unknown:
        raise StartupError(unknown_keys_problem(unknown))


@dataclass(frozen=True)
class Dropped:
    """What drop-unreadable did to one table's rows of one kind (never a value)."""

    table: str
    kind: str
    rows: int
    # "deleted", or what became of a row that had to stay ("disconnected").
    action: str


# A service's own drop: in one transaction, what it did to each table.
Drop = Callable[[AsyncConnection, Sequence[str]], Awaitable[list[Dropped]]]
# The drop is one transaction an operator waits for, not a call on the hot path.
DROP_TIMEOUT_S = 600


def drop_unreadable_main(
    name: str, settings_class: type[Any], migrations: Any, drop: Drop, argv: Sequence[str]
) -> int:
    """`nod-<service> drop-unreadable --key ID [--key ID ...] [--json]`: the
    one-shot removal of what the service holds sealed under keys that are
    lost for good (its `drop` says what removal means for each table). A
    key the service's NOD_VAULT_KEY lists is refused: what it sealed opens.
    Safe to run again: the second run finds nothing and says so."""
    command = f"nod-{name}"
    parser = argparse.ArgumentParser(
        prog=f"{command} {DROP_UNREADABLE}",
        description="Drops what this service holds sealed under vault keys that are lost for"
        " good (never a key NOD_VAULT_KEY lists), in one transaction, and says what it"
        " dropped. Usually run through `nodctl vault drop-unreadable`.",
    )
    parser.add_argument(
        "--key", dest="key_ids", action="append", required=True, metavar="KEY_ID",
        help="a lost key's id, as the start refusal named it (repeat for several)",
    )  # fmt: skip
    parser.add_argument("--json", action="store_true", help="print JSON for nodctl")
    args = parser.parse_args(list(argv))
    try:
        settings = settings_class()
    except ValidationError as error:
        return fail(command, settings_problem(error, settings_class), BAD_SETTING)
    # Any log line goes to stderr: stdout is the summary (JSON for nodctl).
    configure_logging(
        name, level=settings.log_level, fmt=settings.log_format, color=settings.log_color
    )
    try:
        sealer = Sealer(settings.vault_key.get_secret_value())
    except ValueError as error:
        return fail(command, str(error), BAD_SETTING)
    listed = [key_id for key_id in args.key_ids if key_id in sealer.key_ids]
    if listed:
        return fail(
            command,
            f"vault key(s) {', '.join(listed)} are in NOD_VAULT_KEY: what they sealed opens,"
            " so it is not dropped; only a key that is lost for good may be named",
            BAD_SETTING,
        )
    try:
        dropped = asyncio.run(_drop(name, settings, migrations, drop, args.key_ids))
    except StartupError as error:
        return fail(command, str(error), MISSING_DEPENDENCY)
    except OperationalError as error:
        return fail(command, database_problem(error, settings.database_url), MISSING_DEPENDENCY)
    except DBAPIError as error:  # a user that may not write the schema, most likely
        said = str(error.orig or error).strip().splitlines()[0]
        return fail(command, f"the database refused it ({said}); nothing was dropped", 1)
    if args.json:
        print(json.dumps({"key_ids": args.key_ids, "dropped": [asdict(d) for d in dropped]}))
    else:
        print(dropped_text(name, args.key_ids, dropped))
    return 0


async def _drop(
    name: str, settings: Any, migrations: Any, drop: Drop, key_ids: Sequence[str]
) -> list[Dropped]:
    timeout_ms = max(settings.db_statement_timeout_ms, DROP_TIMEOUT_S * 1000)
    settings = settings.model_copy(
        update={"db_statement_timeout_ms": timeout_ms, "db_call_timeout_s": DROP_TIMEOUT_S}
    )
    engine = create_engine(settings, migrations.schema)
    try:
        if not await is_at_head(engine, migrations.directory, migrations.schema):
            raise StartupError(
                f"the {migrations.schema} schema is not at its migrations' head:"
                f" run nod-{name} migrate first"
            )
        async with engine.begin() as conn:
            return await drop(conn, key_ids)
    finally:
        await engine.dispose()


def dropped_text(name: str, key_ids: Sequence[str], dropped: Sequence[Dropped]) -> str:
    keys = ", ".join(key_ids)
    if not dropped:
        return f"{name}: nothing is sealed with vault key(s) {keys}; nothing dropped"
    lines = [f"{name}: dropped what was sealed with vault key(s) {keys}:"]
    lines += [f"  {d.table} {d.kind}: {d.rows} {d.action}" for d in dropped]
    return "\n".join(lines)
