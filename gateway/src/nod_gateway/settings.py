import ipaddress
import urllib.parse
from typing import Annotated, Literal, Self

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import NoDecode, SettingsConfigDict

from nod_gateway.client_address import networks
from nod_gateway.email_address import address_problem
from nodkit.settings import ServiceSettings, peer_address

DAY_S = 24 * 3600


class GatewaySettings(ServiceSettings):
    model_config = SettingsConfigDict(env_prefix="NOD_GATEWAY_")

    listen: str = Field("127.0.0.1:8080", description="host:port the web UI (HTTP) listens on.")
    claims_addr: str = peer_address("claims")
    approvals_addr: str = peer_address("approvals")
    payments_addr: str = peer_address("payments")
    tasks_addr: str = peer_address("tasks")
    call_timeout_s: float = Field(
        5.0, gt=0, description="The deadline of every gRPC call the gateway makes."
    )
    watch_s: float = Field(
        300.0,
        gt=0,
        description="A live timeline's watch is cut after this, and the browser resumes from"
        " its last event.",
    )
    # `make run` serves plain HTTP on loopback.
    secure_cookies: bool = Field(
        False,
        description="Mark cookies `Secure`: set it when the gateway is reached over HTTPS"
        " (behind a proxy that terminates it).",
    )
    session_ttl_s: int = Field(12 * 3600, gt=0, description="How long a sign-in lasts.")
    sign_in_failures: int = Field(
        5,
        gt=0,
        description="Failed sign-ins allowed for one name (ten times as many from one address)"
        " within NOD_GATEWAY_SIGN_IN_WINDOW_S; past it, further tries wait.",
    )
    sign_in_window_s: int = Field(
        900, gt=0, description="The window the sign-in failures are counted in."
    )
    # The limit counts failures inside the window: pruning one sooner would
    # let a guesser through.
    sign_in_attempts_keep_s: int = Field(
        30 * DAY_S,
        gt=0,
        description="Sign-in attempts (name, address, whether it worked) are deleted once"
        " older than this; at least NOD_GATEWAY_SIGN_IN_WINDOW_S.",
    )
    expired_sessions_keep_s: int = Field(
        7 * DAY_S,
        ge=0,
        description="Sessions are deleted this long after they expired (an expired session"
        " signs nobody in; 0: at once).",
    )
    prune_interval_s: float = Field(
        3600.0,
        gt=0,
        description="How often sign-in attempts and sessions past their keep are deleted.",
    )
    # Small batches keep each delete's locks and WAL short beside sign-ins.
    prune_batch: int = Field(1000, gt=0, description="Rows one delete statement removes at most.")
    # Only their X-Forwarded-For is believed, so a client can't name an
    # address to lock it out or to dodge the per-address limit.
    trusted_proxies: Annotated[tuple[str, ...], NoDecode] = Field(
        (),
        description="The proxies in front of the gateway (addresses or CIDR blocks, comma"
        " separated) whose X-Forwarded-For and trace context (traceparent, tracestate,"
        " baggage) are believed; none: the connection's peer is the client, and a request's"
        " trace starts at the gateway.",
    )

    # Email nudges (nudges.py): a person with an address and no page of
    # theirs open hears of a wait by email, once.
    public_url: str = Field(
        "",
        description="The gateway's address as people reach it (`https://nod.example`): the"
        " link in a nudge email. Empty: the email says to open nod, without a link.",
    )
    nudges: bool = Field(
        True,
        description="Email nudges on (they also need NOD_GATEWAY_SMTP_HOST): a person who"
        " added an address and has no nod page open gets one email per wait.",
    )
    nudge_delay_s: float = Field(
        60.0,
        gt=0,
        description="How long a wait and the person's absence (no task page of theirs open)"
        " last before the email is sent.",
    )
    nudge_check_s: float = Field(
        15.0,
        gt=0,
        description="How often each gateway replica looks for waits to email about.",
    )
    smtp_host: str = Field(
        "",
        description="The SMTP server nudge emails are sent through; empty: no emails.",
    )
    smtp_port: int = Field(
        587, ge=1, le=65535, description="Its port (587 for STARTTLS, 465 for TLS)."
    )
    smtp_security: Literal["starttls", "tls", "plain"] = Field(
        "starttls",
        description="`starttls` (upgrade the connection, required), `tls` (TLS from the"
        " start) or `plain` (no encryption: only for a server on loopback).",
    )
    smtp_from: str = Field(
        "", description="The From address of nudge emails (needed with NOD_GATEWAY_SMTP_HOST)."
    )
    smtp_username: str = Field("", description="The SMTP login's name; empty: no login.")
    smtp_password: SecretStr | None = Field(
        None,
        description="The SMTP login's password (NOD_GATEWAY_SMTP_PASSWORD_FILE for a mounted"
        " secret).",
    )
    smtp_timeout_s: float = Field(
        20.0, gt=0, description="The whole of one email's conversation with the SMTP server."
    )

    @property
    def nudging(self) -> bool:
        """Whether this gateway emails nudges at all."""
        return self.nudges and bool(self.smtp_host)

    @property
    def page_seen_every_s(self) -> float:
        """How often an open task page says it is open: well inside the delay."""
        return min(15.0, self.nudge_delay_s / 4)

    @field_validator("public_url")
    @classmethod
    def _a_base_url(cls, value: str) -> str:
        value = value.strip().rstrip("/")
        if not value:
            return value
        parts = urllib.parse.urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc or parts.query:
            raise ValueError("must be an http(s) address such as https://nod.example")
        return value

    @field_validator("smtp_from")
    @classmethod
    def _an_address(cls, value: str) -> str:
        value = value.strip()
        problem = address_problem(value) if value else None
        if problem:
            raise ValueError(f"must be an email address ({problem[0].lower()}{problem[1:-1]})")
        return value

    @model_validator(mode="after")
    def _smtp_complete(self) -> Self:
        if not self.nudging:
            return self
        if not self.smtp_from:
            raise ValueError(
                "a From address (NOD_GATEWAY_SMTP_FROM) is needed with NOD_GATEWAY_SMTP_HOST"
            )
        if self.smtp_security == "plain" and not _loopback(self.smtp_host):
            raise ValueError(
                "plain SMTP (NOD_GATEWAY_SMTP_SECURITY=plain) is only for a server on"
                " loopback: use starttls or tls for NOD_GATEWAY_SMTP_HOST"
            )
        if bool(self.smtp_username) != (self.smtp_password is not None):
            raise ValueError(
                "an SMTP login needs both NOD_GATEWAY_SMTP_USERNAME and"
                " NOD_GATEWAY_SMTP_PASSWORD: set both, or neither"
            )
        return self

    @field_validator("trusted_proxies", mode="before")
    @classmethod
    def _comma_separated(cls, value: object) -> object:
        if isinstance(value, str):
            value = tuple(part.strip() for part in value.split(",") if part.strip())
        networks(value)  # type: ignore[arg-type]
        return value

    @model_validator(mode="after")
    def _attempts_outlive_the_window(self) -> Self:
        if self.sign_in_attempts_keep_s < self.sign_in_window_s:
            raise ValueError(
                "NOD_GATEWAY_SIGN_IN_ATTEMPTS_KEEP_S must be at least"
                " NOD_GATEWAY_SIGN_IN_WINDOW_S: the sign-in limit counts every failure"
                " inside the window"
            )
        return self


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
