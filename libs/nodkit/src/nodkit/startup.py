"""A mistake in how a service was started, told in one line.

A setting that is wrong, a database that is not there, a browser that is
not installed: each is the operator's to fix, and a 60-line traceback hides
the one thing they need. So every service's command (nodkit.cli) and the
gateway's turn such a mistake into one line on stderr naming the variable,
what was wrong and what to do, and exit non-zero at start, not at first use
(a crash-looping pod says the same line in its log). Values are never
repeated back: a setting may be a secret or a URL with a password.
"""

import sys

import sqlalchemy as sa
from pydantic import AliasChoices, ValidationError
from pydantic_settings import BaseSettings
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, OperationalError

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
