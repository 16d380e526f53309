from pydantic import Field
from pydantic_settings import SettingsConfigDict

from nodkit.settings import ServiceSettings, shared


class PaymentsSettings(ServiceSettings):
    model_config = SettingsConfigDict(env_prefix="NOD_PAYMENTS_")

    listen: str = "0.0.0.0:50053"
    # Where the claims service answers (the name every caller of it shares):
    # the claim a card entry's end names is checked there.
    claims_addr: str = Field("127.0.0.1:50051", validation_alias=shared("claims_addr"))
    claims_timeout_s: float = Field(5.0, gt=0)
    # This instance renews its lease well inside the ttl; past it, another
    # replica's sweeper ends this instance's RUNNING payments as UNCERTAIN.
    lease_ttl_s: float = Field(30.0, gt=0)
    # Expiring unanswered payments and sweeping dead instances' card entries.
    sweep_interval_s: float = Field(5.0, gt=0)
    # No payment stays RUNNING longer than this, whatever happened to the
    # caller entering its card (tasks ends a cut-off entry itself; this is
    # for when that caller never comes back): it ends UNCERTAIN.
    max_running_s: float = Field(900.0, gt=0)
    # How long the person has to say yes.
    confirmation_ttl_s: float = Field(900.0, gt=0)
    # WatchPayment looks again when the payment's change is announced (any
    # instance's, LISTEN/NOTIFY), and at least this often in case an
    # announcement was missed (the listening connection was down).
    watch_poll_s: float = Field(2.0, gt=0)
