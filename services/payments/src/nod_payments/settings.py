from pydantic import AliasChoices, Field
from pydantic_settings import SettingsConfigDict

from nodkit.settings import ServiceSettings


def _payments_setting(name: str, default: float):
    # Prefixed with the service, so one shared environment (make run) can't
    # hand another service's lease ttl to payments.
    return Field(default, gt=0, validation_alias=AliasChoices(f"NOD_PAYMENTS_{name.upper()}"))


class PaymentsSettings(ServiceSettings):
    # Tests and wiring may also pass the settings by field name.
    model_config = SettingsConfigDict(validate_by_name=True)

    listen: str = Field("0.0.0.0:50053", validation_alias=AliasChoices("NOD_PAYMENTS_LISTEN"))
    # This instance renews its lease well inside the ttl; past it, another
    # replica's sweeper ends this instance's RUNNING payments as UNCERTAIN.
    lease_ttl_s: float = _payments_setting("lease_ttl_s", 30.0)
    # Expiring unanswered payments and sweeping dead instances' card entries.
    sweep_interval_s: float = _payments_setting("sweep_interval_s", 5.0)
    # How long the person has to say yes.
    confirmation_ttl_s: float = _payments_setting("confirmation_ttl_s", 900.0)
    # How often WatchPayment looks at the row.
    watch_poll_s: float = _payments_setting("watch_poll_s", 0.2)
