"""The webhook app: POSTs the saved parameters, as stored, to the account's
URL once. The execution id goes along as Idempotency-Key, so an app that
honours it can tell a duplicate even though nod never sends one."""

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

import httpx

from nod_approvals.adapters.connectors.addresses import AddressGuard, Refused, Unresolved
from nod_approvals.adapters.connectors.base import (
    ActionCheck,
    Send,
    app_message,
    check_keys,
    check_text,
)
from nod_approvals.domain.approvals import ExecutionState, Outcome, not_run, uncertain
from nodkit import faults
from nodkit.errors import InvalidArgument

# httpx logs every request's URL at INFO; a webhook URL often carries a
# secret in its path, so only its warnings may reach the log.
logging.getLogger("httpx").setLevel(logging.WARNING)

# Enough of an answer to show the person; the rest is not read.
MAX_ANSWER_BYTES = 8192
CONNECT_TIMEOUT_S = 5.0
URL_FIELD = "account.settings.url"
# Where the app lists what it received, for nod's read-only look at an
# uncertain send (G14); "{execution_id}" in it is the execution's id.
STATUS_URL_FIELD = "account.settings.status_url"
DEFAULT_PORTS = {"http": 80, "https": 443}
# 408: the app gave up reading; 409: the idempotency key is still in
# progress there. Neither says whether the action happened.
_UNDECIDED_4XX = frozenset({408, 409})


def check_post(parameters: dict) -> dict:
    return parameters  # any JSON object is a valid body


@dataclass
class _Progress:
    # From the first request on, the app may have seen it.
    requested: bool = False


def _parse(url: str, field: str = URL_FIELD) -> httpx.URL:
    """The one parser for the URL, at connect and at send, so the host
    checked is the host connected to."""
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL:
        raise InvalidArgument(field, "must be an http(s) URL") from None
    if parsed.scheme not in ("http", "https") or not parsed.raw_host or " " in url:
        raise InvalidArgument(field, "must be an http(s) URL")
    if parsed.userinfo:
        raise InvalidArgument(field, "must not carry credentials")
    return parsed


def _destination(url: httpx.URL) -> tuple[str, int]:
    return url.raw_host.decode("ascii"), url.port or DEFAULT_PORTS[url.scheme]


class WebhookConnector:
    app: ClassVar[str] = "webhook"
    actions: ClassVar[Mapping[str, ActionCheck]] = {"post": check_post}

    def __init__(self, *, timeout_s: float, guard: AddressGuard) -> None:
        self.timeout_s = timeout_s
        self._guard = guard
        # Loaded once: reading the CA bundle is no part of any send's budget.
        self._tls = httpx.create_ssl_context()

    def check_settings(self, settings: dict[str, str]) -> dict[str, str]:
        check_keys(
            settings,
            "account.settings",
            required=frozenset({"url"}),
            optional=frozenset({"status_url"}),
        )
        checked = {"url": check_text(URL_FIELD, settings["url"], max_length=2048)}
        if "status_url" in settings:
            checked["status_url"] = check_text(
                STATUS_URL_FIELD, settings["status_url"], max_length=2048
            )
        for name, url in checked.items():
            _parse(url, f"account.settings.{name}")
        return checked

    def check_credentials(self, credentials: dict[str, str]) -> dict[str, str]:
        check_keys(
            credentials, "account.credentials", required=frozenset(), optional=frozenset({"token"})
        )
        for name, value in credentials.items():
            check_text(f"account.credentials.{name}", value, max_length=4096)
            if not value.isprintable() or value != value.strip():
                raise InvalidArgument(f"account.credentials.{name}", "must be printable")
        return credentials

    async def check_reachable(self, settings: dict[str, str]) -> None:
        await self._guard.check(URL_FIELD, *_destination(_parse(settings["url"])))

    async def send(self, request: Send) -> Outcome:
        progress = _Progress()
        try:
            async with asyncio.timeout(self.timeout_s):
                return await self._post(request, progress)
        except TimeoutError:
            why = f"the app gave no answer within {self.timeout_s:g} s"
            return uncertain(why) if progress.requested else not_run(why)

    async def _post(self, request: Send, progress: _Progress) -> Outcome:
        url = _parse(request.settings["url"])
        host, port = _destination(url)
        try:
            addresses = await self._guard.resolve(host, port)
        except Refused as refused:
            return not_run(f"the app's address is not allowed ({refused})")
        except Unresolved:
            return not_run(f"could not look up the app's host {host}")
        headers = {
            "Content-Type": "application/json",
            "Idempotency-Key": request.execution_id,
            # The URL's own name, though the connection goes to a checked address.
            "Host": url.netloc.decode("ascii"),
        }
        if token := request.credentials.get("token"):
            headers["Authorization"] = f"Bearer {token}"
        # TLS checks the certificate against the URL's name, not the address.
        extensions = {"sni_hostname": host} if url.scheme == "https" else {}
        timeout = httpx.Timeout(self.timeout_s, connect=min(self.timeout_s, CONNECT_TIMEOUT_S))
        body = request.parameters_json.encode()
        # A client per send: no pooled connection, no retry, no proxy from the
        # environment, and a redirect is an answer, never followed.
        async with httpx.AsyncClient(
            verify=self._tls, timeout=timeout, trust_env=False, follow_redirects=False
        ) as client:
            failed: Exception | None = None
            for address in addresses:
                pinned = url.copy_with(host=str(address))
                progress.requested = True
                try:
                    async with client.stream(
                        "POST", pinned, content=body, headers=headers, extensions=extensions
                    ) as response:
                        await faults.point("approvals.request_sent")
                        answer = await _read_answer(response)
                except (httpx.ConnectError, httpx.ConnectTimeout) as error:
                    failed = error  # nothing reached this address: the next may answer
                    continue
                except httpx.TimeoutException:
                    return uncertain("the app gave no answer in time")
                except httpx.TransportError as error:
                    return uncertain(f"the connection to the app broke ({type(error).__name__})")
                return _outcome(response.status_code, answer, request.credentials)
        return not_run(f"could not connect to the app ({type(failed).__name__})")


async def _read_answer(response: httpx.Response) -> str:
    """The status already answered; a body cut short still leaves that answer."""
    body = b""
    try:
        async for chunk in response.aiter_bytes():
            body += chunk
            if len(body) >= MAX_ANSWER_BYTES:
                break
    except httpx.TransportError:
        body += b" (answer cut off)"
    return body[:MAX_ANSWER_BYTES].decode(errors="replace")


def _outcome(status: int, answer: str, credentials: dict[str, str]) -> Outcome:
    message = app_message(f"HTTP {status}: {answer}", credentials)
    if 200 <= status < 300:
        return Outcome(ExecutionState.DONE, result=message)
    if 400 <= status < 500 and status not in _UNDECIDED_4XX:
        return Outcome(ExecutionState.FAILED, reason=f"the app refused it: {message}")
    return uncertain(f"the app answered {message}")
