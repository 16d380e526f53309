"""A mistake in how a service is started is one line naming the variable,
what was wrong and what to do, and a non-zero exit, at start: never a
traceback, never a service that starts and fails at first use."""

import base64
import os
import subprocess
import sys
from dataclasses import dataclass

import pytest

UNUSED_PORT_URL = "postgresql+psycopg://postgres@127.0.0.1:9/nod"
MISSING_DATABASE = "postgresql+psycopg://postgres@127.0.0.1:5432/nod_no_such_database"


@dataclass(frozen=True)
class Mistake:
    service: str
    command: str
    env: dict[str, str]
    # What the one line must say, and the exit code.
    says: tuple[str, ...]
    exit_code: int


MISTAKES = {
    "a database that does not exist": Mistake(
        "claims", "serve", {"NOD_DATABASE_URL": MISSING_DATABASE},
        ("NOD_DATABASE_URL", "does not exist", "createdb"), 1,
    ),
    "no database answering, at migrate": Mistake(
        "claims", "migrate", {"NOD_DATABASE_URL": UNUSED_PORT_URL},
        ("NOD_DATABASE_URL", "no PostgreSQL answers at 127.0.0.1:9"), 1,
    ),
    "the common postgres:// spelling is understood": Mistake(
        "payments", "migrate",
        {"NOD_DATABASE_URL": MISSING_DATABASE.replace("postgresql+psycopg://", "postgres://")},
        ("NOD_DATABASE_URL", "does not exist"), 1,
    ),
    "a URL of another database": Mistake(
        "gateway", "serve", {"NOD_DATABASE_URL": "mysql://nod@127.0.0.1/nod"},
        ("NOD_DATABASE_URL", "must be a PostgreSQL URL", "postgresql+psycopg://"), 2,
    ),
    "a duration that is no number": Mistake(
        "approvals", "serve", {"NOD_APPROVALS_LEASE_TTL_S": "ten"},
        ("NOD_APPROVALS_LEASE_TTL_S", "number"), 2,
    ),
    "a negative time to live": Mistake(
        "claims", "serve", {"NOD_CLAIMS_LEASE_TTL_S": "-3"},
        ("NOD_CLAIMS_LEASE_TTL_S", "greater than 0"), 2,
    ),
    "an unknown log level": Mistake(
        "tasks", "serve", {"NOD_LOG_LEVEL": "LOUD"},
        ("NOD_LOG_LEVEL", "DEBUG, INFO, WARNING, ERROR"), 2,
    ),
    "a model URL without a scheme": Mistake(
        "tasks", "serve", {"NOD_MODEL_URL": "api.example.com/v1"},
        ("NOD_MODEL_URL", "http(s)"), 2,
    ),
    "a Chromium path that names nothing": Mistake(
        "browser", "serve", {"NOD_BROWSER_CHROMIUM": "/nowhere/chromium"},
        ("NOD_BROWSER_CHROMIUM", "/nowhere/chromium", "install"), 1,
    ),
    "no Chromium on the PATH": Mistake(
        "browser", "serve", {"PATH": os.path.dirname(sys.executable)},
        ("no Chromium on PATH", "NOD_BROWSER_CHROMIUM"), 1,
    ),
    "a vault key that is not base64": Mistake(
        "claims", "serve", {"NOD_VAULT_KEY": "k1:not base64!"},
        ("NOD_VAULT_KEY holds a key that is not base64",), 2,
    ),
    "a vault key of the wrong size": Mistake(
        "approvals", "serve", {"NOD_VAULT_KEY": "a2V5"},
        ("NOD_VAULT_KEY keys must be 32 bytes",), 2,
    ),
    "no credential": Mistake(
        "payments", "serve", {"NOD_SERVICE_TOKEN": ""},
        ("NOD_SERVICE_TOKEN",), 2,
    ),
}  # fmt: skip


def started(mistake: Mistake) -> subprocess.CompletedProcess:
    env = {name: value for name, value in os.environ.items() if not name.startswith("NOD_")}
    env |= {
        "NOD_SERVICE_TOKEN": "startup-mistakes",
        "NOD_VAULT_KEY": base64.b64encode(b"k" * 32).decode(),
        "NOD_DATABASE_URL": MISSING_DATABASE,
        **mistake.env,
    }
    return subprocess.run(
        [sys.executable, "-m", f"nod_{mistake.service}", mistake.command],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("what", MISTAKES)
def test_a_mistake_is_one_line_and_a_non_zero_exit(what):
    mistake = MISTAKES[what]

    done = started(mistake)

    lines = [line for line in (done.stderr + done.stdout).splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"nod-{mistake.service}: "), lines[0]
    for words in mistake.says:
        assert words in lines[0]
    assert "Traceback" not in lines[0]
    assert done.returncode == mistake.exit_code


@pytest.mark.parametrize("service", ["claims", "approvals", "payments", "tasks", "browser"])
def test_help_lists_every_command_and_a_stray_argument_is_a_usage_error(service):
    """`nod-<service> --help` names every command the service has (claims'
    and approvals' drop-unreadable too); an argument a command doesn't take
    is a usage error (2), never ignored."""
    listed = subprocess.run(
        [sys.executable, "-m", f"nod_{service}", "--help"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert listed.returncode == 0, listed.stderr
    commands = ["serve", "migrate"]
    if service in ("claims", "approvals"):
        commands.append("drop-unreadable")
    for command in commands:
        assert f"{command}:" in " ".join(listed.stdout.split()), listed.stdout

    stray = subprocess.run(
        [sys.executable, "-m", f"nod_{service}", "migrate", "--now"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert stray.returncode == 2 and "migrate takes no arguments: --now" in stray.stderr
