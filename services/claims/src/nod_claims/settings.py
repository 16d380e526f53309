from pydantic import AliasChoices, Field, SecretStr

from nodkit.settings import ServiceSettings


class ClaimsSettings(ServiceSettings):
    listen: str = Field("0.0.0.0:50051", validation_alias=AliasChoices("NOD_CLAIMS_LISTEN"))
    vault_key: SecretStr
    # A runner renews its lease well inside this; past it, its RUNNING claims
    # are swept to UNCERTAIN.
    lease_ttl_s: float = Field(30.0, gt=0)
    sweep_interval_s: float = Field(5.0, gt=0)
    # A private entry nobody claims is destroyed after this.
    private_entry_ttl_s: float = Field(3600.0, gt=0)
