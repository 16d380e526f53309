from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import SettingsConfigDict

from nodkit.settings import ServiceSettings


def _env(name: str) -> AliasChoices:
    """Approvals' own settings read NOD_APPROVALS_<NAME>."""
    return AliasChoices(f"NOD_APPROVALS_{name}")


class ApprovalsSettings(ServiceSettings):
    # Tests and wiring may also pass the fields by name.
    model_config = SettingsConfigDict(**ServiceSettings.model_config, populate_by_name=True)

    listen: str = Field("0.0.0.0:50052", validation_alias=_env("LISTEN"))
    # Seals account credentials at rest.
    vault_key: SecretStr
    # This instance renews its lease every lease_ttl_s / 3; past the ttl, its
    # RUNNING executions are swept to UNCERTAIN by any other instance.
    lease_ttl_s: float = Field(30.0, gt=0, validation_alias=_env("LEASE_TTL_S"))
    sweep_interval_s: float = Field(5.0, gt=0, validation_alias=_env("SWEEP_INTERVAL_S"))
    # A pending approval nobody decides in time can no longer run.
    approval_ttl_s: float = Field(900.0, gt=0, validation_alias=_env("APPROVAL_TTL_S"))
    webhook_timeout_s: float = Field(10.0, gt=0, validation_alias=_env("WEBHOOK_TIMEOUT_S"))
    smtp_timeout_s: float = Field(20.0, gt=0, validation_alias=_env("SMTP_TIMEOUT_S"))
    # Extra CA certificates (PEM) trusted for SMTP STARTTLS, e.g. a local relay's.
    smtp_ca_file: str | None = Field(None, validation_alias=_env("SMTP_CA_FILE"))
    # How often a watch re-reads the database for changes made elsewhere
    # (another instance, the sweeper); changes made here wake it at once.
    watch_poll_s: float = Field(1.0, gt=0, validation_alias=_env("WATCH_POLL_S"))
