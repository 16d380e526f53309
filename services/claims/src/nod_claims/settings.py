from pydantic import Field
from pydantic_settings import SettingsConfigDict

from nodkit.settings import DEFAULT_ADDRESSES, ServiceSettings, VaultKey, shared

DAY_S = 24 * 3600


class ClaimsSettings(ServiceSettings):
    model_config = SettingsConfigDict(env_prefix="NOD_CLAIMS_")

    listen: str = DEFAULT_ADDRESSES["claims"]
    vault_key: VaultKey = Field(
        validation_alias=shared("vault_key"),
        description="Seals the vault at rest (AES-256-GCM): one base64 32-byte key, or"
        " `id:key,id:key` newest first to rotate (the first seals, every one opens). Losing"
        " it loses every sealed value: the service refuses to start while its database holds"
        " values under a key id not listed here (docs/NODCTL.md).",
    )
    lease_ttl_s: float = Field(
        30.0,
        gt=0,
        description="A runner holding claims renews its lease well inside this; past it, its"
        " RUNNING claims are swept to UNCERTAIN.",
    )
    sweep_interval_s: float = Field(
        5.0,
        gt=0,
        description="How often lapsed holders' and overdue claims are ended UNCERTAIN and"
        " expired private entries destroyed.",
    )
    # The runner's whole entry (30 s by default) plus a margin for recording
    # its end: past it the end was lost.
    max_running_s: float = Field(
        90.0,
        gt=0,
        description="No claim stays RUNNING longer than this, whatever its holder's lease: it"
        " ends UNCERTAIN.",
    )
    # One makes the biggest batches: measured again with today's statement,
    # 2,700-2,770 against 1,740-1,920 claims/s at 64 callers with two out at
    # once (app/claim_batches.py).
    claim_batches: int = Field(
        1,
        gt=0,
        description="How many claim statements may be out at once; claims arriving meanwhile"
        " go together in the next one.",
    )
    private_entry_ttl_s: float = Field(
        3600.0,
        gt=0,
        description="A private entry (a typed code, password or security code) nobody claims"
        " within this is destroyed.",
    )
    # A resend after a lost answer comes within seconds or minutes; a month
    # leaves room for a caller that was down for days.
    request_ids_keep_s: int = Field(
        30 * DAY_S,
        gt=0,
        description="The request ids of PutItem and PutPrivateEntry are deleted once older"
        " than this; a resend after that would store the item again.",
    )
    # A step's row must outlive every sign-in that could still be given
    # that step's code (the current step, or one just ahead): an hour at least.
    totp_steps_keep_s: int = Field(
        DAY_S,
        ge=3600,
        description="Which TOTP time steps' codes were given is kept this long (at least an"
        " hour: each step's code is given once).",
    )
    prune_interval_s: float = Field(
        3600.0,
        gt=0,
        description="How often request ids and TOTP steps past their keep are deleted.",
    )
    # Small batches keep each delete's locks and WAL short beside the claims.
    prune_batch: int = Field(1000, gt=0, description="Rows one delete statement removes at most.")
