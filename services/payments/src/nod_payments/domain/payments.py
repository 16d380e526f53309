"""The payment and its states (G5, G8), in plain Python.

AWAITING_CONFIRMATION -> CONFIRMED (yes) | REFUSED (no) | CANCELLED | EXPIRED
CONFIRMED -> RUNNING (the card entry starts) | CANCELLED
RUNNING -> SUBMITTED (outcome recorded beside it) | UNCERTAIN
The database makes each transition (store/transitions.py); refusals.py says
what a refused one means.
"""

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum


class PaymentState(StrEnum):
    AWAITING_CONFIRMATION = "awaiting_confirmation"
    CONFIRMED = "confirmed"
    RUNNING = "running"
    SUBMITTED = "submitted"
    UNCERTAIN = "uncertain"
    REFUSED = "refused"
    CANCELLED = "cancelled"
    EXPIRED = "expired"


class PaymentOutcome(StrEnum):
    PAID = "paid"
    DECLINED = "declined"
    UNKNOWN = "unknown"


class Decision(StrEnum):
    YES = "yes"
    NO = "no"


FINAL_STATES = frozenset(
    {
        PaymentState.SUBMITTED,
        PaymentState.UNCERTAIN,
        PaymentState.REFUSED,
        PaymentState.CANCELLED,
        PaymentState.EXPIRED,
    }
)
# The person said yes to these; they count against the daily limit.
YES_GIVEN_STATES = frozenset(
    {PaymentState.CONFIRMED, PaymentState.RUNNING, PaymentState.SUBMITTED, PaymentState.UNCERTAIN}
)
STARTED_STATES = frozenset({PaymentState.RUNNING, PaymentState.SUBMITTED, PaymentState.UNCERTAIN})


@dataclass(frozen=True)
class PaymentRecord:
    id: str
    task_id: str
    merchant_origin: str
    amount_minor: int
    currency: str
    description: str
    card_item_id: str
    card_label: str
    order_reference: str | None
    repeat_of_payment_id: str | None
    state: PaymentState
    outcome: PaymentOutcome | None
    card_operation_id: str | None
    claim_id: str | None
    runner_instance: str | None
    reason: str
    created_at: datetime
    updated_at: datetime
    expires_at: datetime
    confirmed_at: datetime | None
    started_at: datetime | None
    # The CreatePayment request_id that made it (None: made before request ids).
    request_id: str | None = None
    # Hosted payment pages elsewhere than the merchant that the yes names
    # (sorted, each once): the card may be entered there too (G13).
    hosted_payment_origins: tuple[str, ...] = ()

    @property
    def is_final(self) -> bool:
        return self.state in FINAL_STATES


def card_operation_id(payment_id: str) -> str:
    """Deterministic, so however often a confused caller asks, the claims
    service can grant only one card entry for this payment (G2)."""
    return f"payment:{payment_id}:card"
