from pydantic import Field
from pydantic_settings import SettingsConfigDict

from nodkit.settings import DEFAULT_ADDRESSES, ServiceSettings, peer_address


class PaymentsSettings(ServiceSettings):
    model_config = SettingsConfigDict(env_prefix="NOD_PAYMENTS_")

    listen: str = DEFAULT_ADDRESSES["payments"]
    claims_addr: str = peer_address(
        "claims",
        "host:port where the claims service answers: a card entry is bound to its"
        " merchant there when it starts, and the claim its end names is checked there.",
    )
    claims_timeout_s: float = Field(
        5.0, gt=0, description="The deadline of each call to the claims service."
    )
    lease_ttl_s: float = Field(
        30.0,
        gt=0,
        description="This instance renews its lease well inside the ttl; past it, another"
        " replica's sweeper ends this instance's RUNNING payments UNCERTAIN.",
    )
    sweep_interval_s: float = Field(
        5.0,
        gt=0,
        description="How often unanswered payments are expired and lapsed instances' and"
        " overdue RUNNING payments ended UNCERTAIN.",
    )
    # tasks ends a cut-off entry itself; this is for when that caller never
    # comes back.
    max_running_s: float = Field(
        900.0,
        gt=0,
        description="No payment stays RUNNING longer than this, whatever happened to the caller"
        " entering its card: it ends UNCERTAIN.",
    )
    confirmation_ttl_s: float = Field(
        900.0, gt=0, description="How long the person has to say yes to a payment."
    )
    # A notice can be missed (the listening connection was down).
    watch_poll_s: float = Field(
        2.0,
        gt=0,
        description="WatchPayment looks again when the payment's change is announced (any"
        " instance's, LISTEN/NOTIFY), and at least this often.",
    )
