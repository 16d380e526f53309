"""The vault key and the service tokens `make run` creates once under var/,
readable by this user only, and what it says when it made one anew.

A file made anew is said in one line each: a var/ lost while the database
was kept otherwise changes the vault key, the tokens and (made by the
gateway's add-person) the demo person's web password without a word. The
claims and approvals services then refuse to start, naming the key their
values were sealed with (nodkit.startup.check_vault_keys); these lines say
why. A file that was already there is read and nothing is said."""

import base64
import os
import pathlib
import secrets
from dataclasses import dataclass, field

CALLERS = ("browser", "tasks", "gateway", "payments", "operator")
VAULT_KEY = "vault.key"
SERVICE_TOKEN = "service-token"
SERVICE_TOKENS = "service-tokens"


def _read_or_create(path: pathlib.Path, make) -> tuple[str, bool]:
    """The file's text, and whether it was made now."""
    made = False
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as file:
            file.write(make())
        made = True
    path.chmod(0o600)
    return path.read_text().strip(), made


@dataclass
class LocalSecrets:
    # None when NOD_VAULT_KEY was given (make run then neither reads nor makes var/vault.key).
    vault_key: str | None
    service_token: str
    service_tokens: dict[str, str]
    # What was made anew, one line each, for make run to print.
    made: list[str] = field(default_factory=list)


def vault_key_made(path: pathlib.Path) -> str:
    return f"nod: made a new vault key in {path}: nothing sealed under an earlier key opens with it"


def tokens_made(paths: list[pathlib.Path]) -> str:
    return f"nod: made new service tokens in {' and '.join(str(path) for path in paths)}"


def web_password_made(person: str, path: pathlib.Path) -> str:
    return f"nod: made a new web password for {person} in {path}"


def ensure(var: pathlib.Path, *, vault_key_given: bool = False) -> LocalSecrets:
    """Reads var/'s vault key and tokens, making each one that is missing."""
    made: list[str] = []
    vault_key = None
    if not vault_key_given:
        path = var / VAULT_KEY
        vault_key, new = _read_or_create(path, lambda: base64.b64encode(os.urandom(32)).decode())
        if new:
            made.append(vault_key_made(path))
    token, new_token = _read_or_create(var / SERVICE_TOKEN, lambda: secrets.token_urlsafe(32))
    # One token per calling service (nodkit.callers).
    text, new_tokens = _read_or_create(
        var / SERVICE_TOKENS,
        lambda: "\n".join(f"{name} {secrets.token_urlsafe(32)}" for name in CALLERS),
    )
    new_files = [
        var / name
        for name, new in ((SERVICE_TOKEN, new_token), (SERVICE_TOKENS, new_tokens))
        if new
    ]
    if new_files:
        made.append(tokens_made(new_files))
    tokens = dict(line.split(" ", 1) for line in text.splitlines() if line.strip())
    return LocalSecrets(vault_key, token, tokens, made)
