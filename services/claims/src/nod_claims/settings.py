from pydantic import Field, SecretStr
from pydantic_settings import SettingsConfigDict

from nodkit.settings import ServiceSettings, shared


class ClaimsSettings(ServiceSettings):
    model_config = SettingsConfigDict(env_prefix="NOD_CLAIMS_")

    listen: str = "127.0.0.1:50051"
    vault_key: SecretStr = Field(validation_alias=shared("vault_key"))
    # A runner renews its lease well inside this; past it, its RUNNING claims
    # are swept to UNCERTAIN.
    lease_ttl_s: float = Field(30.0, gt=0)
    sweep_interval_s: float = Field(5.0, gt=0)
    # No claim stays RUNNING longer than this, whatever its holder's lease:
    # the runner's whole entry (30 s by default) plus a margin for recording
    # its end. Past it the end was lost, and the claim ends UNCERTAIN.
    max_running_s: float = Field(90.0, gt=0)
    # How many claim statements may be out at once; claims arriving meanwhile
    # go together in the next one (app/claim_batches.py). One makes the
    # biggest batches: measured again with today's statement, 2,700-2,770
    # against 1,740-1,920 claims/s at 64 callers with two out at once.
    claim_batches: int = Field(1, gt=0)
    # A private entry nobody claims is destroyed after this.
    private_entry_ttl_s: float = Field(3600.0, gt=0)
