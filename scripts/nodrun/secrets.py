"""The vault key and the service token `make run` creates once under var/,
readable by this user only."""

import base64
import os
import pathlib
import secrets


def _read_or_create(path: pathlib.Path, make) -> str:
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as file:
            file.write(make())
    path.chmod(0o600)
    return path.read_text().strip()


def vault_key(var: pathlib.Path) -> str:
    return _read_or_create(var / "vault.key", lambda: base64.b64encode(os.urandom(32)).decode())


def service_token(var: pathlib.Path) -> str:
    return _read_or_create(var / "service-token", lambda: secrets.token_urlsafe(32))


CALLERS = ("browser", "tasks", "gateway", "payments", "operator")


def service_tokens(var: pathlib.Path) -> dict[str, str]:
    """One token per calling service (nodkit.callers), kept in var/service-tokens."""
    text = _read_or_create(
        var / "service-tokens",
        lambda: "\n".join(f"{name} {secrets.token_urlsafe(32)}" for name in CALLERS),
    )
    return dict(line.split(" ", 1) for line in text.splitlines() if line.strip())
