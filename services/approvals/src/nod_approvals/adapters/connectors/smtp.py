"""The smtp app: sends one email through the account's mail server, with
STARTTLS when offered. The password is only ever sent over TLS."""

import re
import ssl
from collections.abc import Mapping
from typing import ClassVar

from nod_approvals.adapters.connectors.addresses import AddressGuard
from nod_approvals.adapters.connectors.base import ActionCheck, Send, check_keys, check_text
from nod_approvals.adapters.connectors.smtp_session import Delivery
from nod_approvals.domain.approvals import Outcome
from nodkit.errors import InvalidArgument

# ASCII only: no SMTPUTF8 needed, and nothing that could split a header.
ADDRESS = re.compile(r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+")
MAX_RECIPIENTS = 50
HOST_FIELD = "account.settings.host"


def check_address(field: str, value) -> str:
    if not isinstance(value, str) or len(value) > 254 or not ADDRESS.fullmatch(value):
        raise InvalidArgument(field, "must be an email address such as ada@example.com")
    return value


def check_send_email(parameters: dict) -> dict:
    check_keys(parameters, "parameters", required=frozenset({"to", "subject", "body"}))
    to = parameters["to"]
    if not isinstance(to, list) or not 1 <= len(to) <= MAX_RECIPIENTS:
        raise InvalidArgument("parameters.to", f"must list 1 to {MAX_RECIPIENTS} addresses")
    return {
        "to": [check_address(f"parameters.to[{i}]", address) for i, address in enumerate(to)],
        "subject": check_text("parameters.subject", parameters["subject"], max_length=998),
        "body": check_text(
            "parameters.body", parameters["body"], max_length=60000, single_line=False
        ),
    }


class SmtpConnector:
    app: ClassVar[str] = "smtp"
    actions: ClassVar[Mapping[str, ActionCheck]] = {"send_email": check_send_email}

    def __init__(
        self, *, timeout_s: float, guard: AddressGuard, ca_file: str | None = None
    ) -> None:
        self.timeout_s = timeout_s
        self._guard = guard
        tls = ssl.create_default_context()
        if ca_file:
            tls.load_verify_locations(cafile=ca_file)
        self._delivery = Delivery(tls=tls, budget_s=timeout_s, guard=guard)

    def check_settings(self, settings: dict[str, str]) -> dict[str, str]:
        where = "account.settings"
        check_keys(settings, where, required=frozenset({"host", "port", "from"}))
        host = check_text(HOST_FIELD, settings["host"], max_length=253)
        if not re.fullmatch(r"[A-Za-z0-9.-]+|\[?[0-9A-Fa-f:.]+\]?", host):
            raise InvalidArgument(HOST_FIELD, "must be a host name or address")
        port = settings["port"]
        if not port.isdigit() or not 1 <= int(port) <= 65535:
            raise InvalidArgument(f"{where}.port", "must be a port number (1-65535)")
        sender = check_address(f"{where}.from", settings["from"])
        return {"host": host, "port": str(int(port)), "from": sender}

    def check_credentials(self, credentials: dict[str, str]) -> dict[str, str]:
        where = "account.credentials"
        if not credentials:
            return {}
        check_keys(credentials, where, required=frozenset({"username", "password"}))
        for name, value in credentials.items():
            check_text(f"{where}.{name}", value, max_length=1024)
        return credentials

    async def check_reachable(self, settings: dict[str, str]) -> None:
        await self._guard.check(HOST_FIELD, server_name(settings), int(settings["port"]))

    async def send(self, request: Send) -> Outcome:
        return await self._delivery.deliver(
            request, server_name(request.settings), int(request.settings["port"])
        )


def server_name(settings: dict[str, str]) -> str:
    """The host without the brackets an IPv6 address may come in."""
    host = settings["host"]
    return host[1:-1] if host.startswith("[") and host.endswith("]") else host
