from typing import Annotated

from pydantic import Field, field_validator
from pydantic_settings import NoDecode, SettingsConfigDict

from nodkit.networks import Network, parse_networks
from nodkit.settings import DEFAULT_ADDRESSES, ServiceSettings, VaultKey, shared


class ApprovalsSettings(ServiceSettings):
    model_config = SettingsConfigDict(env_prefix="NOD_APPROVALS_")

    listen: str = DEFAULT_ADDRESSES["approvals"]
    vault_key: VaultKey = Field(
        validation_alias=shared("vault_key"),
        description="Seals connected accounts' credentials at rest (AES-256-GCM): one base64"
        " 32-byte key, or `id:key,id:key` newest first to rotate. The service refuses to start"
        " while its database holds credentials under a key id not listed here"
        " (docs/NODCTL.md).",
    )
    lease_ttl_s: float = Field(
        30.0,
        gt=0,
        description="This instance renews its lease every ttl/3; past the ttl, its RUNNING"
        " executions are swept to UNCERTAIN by any other instance.",
    )
    sweep_interval_s: float = Field(
        5.0,
        gt=0,
        description="How often lapsed instances' RUNNING executions are ended UNCERTAIN and"
        " undecided approvals past their ttl expired.",
    )
    approval_ttl_s: float = Field(
        900.0,
        gt=0,
        description="A pending approval nobody decides within this can no longer run.",
    )
    webhook_timeout_s: float = Field(
        10.0, gt=0, description="The whole of one webhook action's HTTP request."
    )
    smtp_timeout_s: float = Field(
        20.0, gt=0, description="The whole of one SMTP action's conversation with the relay."
    )
    # Longer than the connectors' own budgets above, so that their end (only
    # a connector knows whether anything had left when its time ran out)
    # comes first; this one ends what hangs around them.
    execution_deadline_s: float = Field(
        60.0,
        gt=0,
        description="An execution's whole deadline, from its yes's commit to its end: past it,"
        " it ends UNCERTAIN once sending may have begun, NOT_RUN before, and is never sent again.",
    )
    smtp_ca_file: str | None = Field(
        None,
        description="Extra CA certificates (PEM) trusted for SMTP STARTTLS, e.g. a local"
        " relay's; unset: the system's only.",
    )
    # Apps are reached on public addresses only, so an app action can't be
    # pointed at the cluster's inside.
    allowed_networks: Annotated[tuple[Network, ...], NoDecode] = Field(
        (),
        description="Networks (comma-separated CIDRs, e.g. 127.0.0.0/8 for local stand-ins)"
        " apps may be reached on besides public addresses.",
    )
    # A notice can be missed (the listening connection was down).
    watch_poll_s: float = Field(
        2.0,
        gt=0,
        description="WatchApproval looks again when the approval's change is announced (any"
        " instance's, LISTEN/NOTIFY), and at least this often.",
    )

    @field_validator("allowed_networks", mode="before")
    @classmethod
    def _networks(cls, value):
        return parse_networks(value) if isinstance(value, str) else value
