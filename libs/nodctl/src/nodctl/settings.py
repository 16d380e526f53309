"""nodctl's settings: the gateway's (the services' addresses, the people
store's database, tokens, TLS: the NOD_* environment every service reads),
and the two things only nodctl needs, the browser service's address (for
health) and the gateway's URL."""

import os
import pathlib
from typing import Any

from pydantic import AliasChoices, Field

from nod_gateway.settings import GatewaySettings
from nodkit.settings import shared

CALLER = "operator"
# What `make run` leaves in its var/ (scripts/nodrun/secrets.py): used when
# the environment names no token, so nodctl works beside `make run` from the
# checkout with no flags.
MAKE_RUN_TOKENS = pathlib.Path("var/service-tokens")
MAKE_RUN_TOKEN = pathlib.Path("var/service-token")
MAKE_RUN_VAULT_KEY = pathlib.Path("var/vault.key")
# `NOD_RUN_TLS=1 make run`'s CA and certificates, the operator's among them.
MAKE_RUN_TLS = pathlib.Path("var/tls")
TOKEN_VARIABLES = ("NOD_SERVICE_TOKEN", "NOD_SERVICE_TOKENS")
VAULT_KEY_VARIABLE = "NOD_VAULT_KEY"


class NodctlSettings(GatewaySettings):
    browser_addr: str = Field("127.0.0.1:50054", validation_alias=shared("browser_addr"))
    # Where the gateway answers HTTP; empty: http:// and NOD_GATEWAY_LISTEN
    # (a wildcard address read as loopback).
    gateway_url: str = Field("", validation_alias=AliasChoices("NOD_NODCTL_GATEWAY_URL"))

    def gateway_base(self) -> str:
        if self.gateway_url:
            return self.gateway_url.rstrip("/")
        host, _, port = self.listen.rpartition(":")
        if host in ("", "0.0.0.0", "::", "[::]"):
            host = "127.0.0.1"
        return f"http://{host}:{port}"

    def addresses(self) -> dict[str, str]:
        return {
            "claims": self.claims_addr,
            "approvals": self.approvals_addr,
            "payments": self.payments_addr,
            "browser": self.browser_addr,
            "tasks": self.tasks_addr,
        }


def _named(variable: str) -> bool:
    return variable in os.environ or f"{variable}_FILE" in os.environ


def names_a_token() -> bool:
    return any(_named(variable) for variable in TOKEN_VARIABLES)


def vault_key_env() -> dict[str, str] | None:
    """Where the services' key ring is read from, for a service's own
    command nodctl runs: the environment's NOD_VAULT_KEY (or _FILE) as it
    is ({}), else `make run`'s var/vault.key; None when there is neither."""
    if _named(VAULT_KEY_VARIABLE):
        return {}
    if MAKE_RUN_VAULT_KEY.exists():
        return {f"{VAULT_KEY_VARIABLE}_FILE": str(MAKE_RUN_VAULT_KEY.resolve())}
    return None


def load() -> NodctlSettings:
    """From the environment; with no token in it, `make run`'s from var/
    (the operator's own if it has one, else the single token), and with
    NOD_RUN_TLS=1 as make run had it, the operator's certificate there."""
    given = _make_run_tls()
    if names_a_token():
        return NodctlSettings(**given)
    tokens = _make_run_tokens()
    if CALLER in tokens:
        return NodctlSettings(service_tokens=f"{CALLER}:{tokens[CALLER]}", **given)
    if MAKE_RUN_TOKEN.exists():
        return NodctlSettings(service_token=MAKE_RUN_TOKEN.read_text().strip(), **given)
    return NodctlSettings(**given)


def _make_run_tls() -> dict[str, Any]:
    """make run's operator certificate, when NOD_RUN_TLS asks for it as it
    asked make run and the environment names no certificate of its own."""
    if os.environ.get("NOD_RUN_TLS", "").lower() not in ("1", "true", "yes"):
        return {}
    if _named("NOD_TLS_CERT_FILE") or not (MAKE_RUN_TLS / f"{CALLER}.pem").exists():
        return {}
    return {
        "tls_cert_file": str((MAKE_RUN_TLS / f"{CALLER}.pem").resolve()),
        "tls_key_file": str((MAKE_RUN_TLS / f"{CALLER}-key.pem").resolve()),
        "tls_ca_file": str((MAKE_RUN_TLS / "ca.pem").resolve()),
        "tls_require_client_cert": True,
    }


def _make_run_tokens() -> dict[str, str]:
    if not MAKE_RUN_TOKENS.exists():
        return {}
    lines = MAKE_RUN_TOKENS.read_text().splitlines()
    return dict(line.split(" ", 1) for line in lines if " " in line.strip())
