from typing import Annotated

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import NoDecode, SettingsConfigDict

from nod_approvals.domain.network import Network, parse_networks
from nodkit.settings import ServiceSettings, shared


class ApprovalsSettings(ServiceSettings):
    model_config = SettingsConfigDict(env_prefix="NOD_APPROVALS_")

    listen: str = "127.0.0.1:50052"
    # Seals account credentials at rest.
    vault_key: SecretStr = Field(validation_alias=shared("vault_key"))
    # This instance renews its lease every lease_ttl_s / 3; past the ttl, its
    # RUNNING executions are swept to UNCERTAIN by any other instance.
    lease_ttl_s: float = Field(30.0, gt=0)
    sweep_interval_s: float = Field(5.0, gt=0)
    # A pending approval nobody decides in time can no longer run.
    approval_ttl_s: float = Field(900.0, gt=0)
    webhook_timeout_s: float = Field(10.0, gt=0)
    smtp_timeout_s: float = Field(20.0, gt=0)
    # Extra CA certificates (PEM) trusted for SMTP STARTTLS, e.g. a local relay's.
    smtp_ca_file: str | None = None
    # Apps are reached on public addresses only; these networks (comma-separated
    # CIDRs, e.g. 127.0.0.0/8 for local stand-ins) are allowed besides.
    allowed_networks: Annotated[tuple[Network, ...], NoDecode] = ()
    # A watch looks again when the approval's change is announced (any
    # instance's, LISTEN/NOTIFY), and at least this often in case an
    # announcement was missed (the listening connection was down).
    watch_poll_s: float = Field(2.0, gt=0)

    @field_validator("allowed_networks", mode="before")
    @classmethod
    def _networks(cls, value):
        return parse_networks(value) if isinstance(value, str) else value
