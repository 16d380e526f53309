"""Optional per-person limits: the largest single payment and the total the
person said yes to in 24 hours, in one currency (plain Python)."""

from dataclasses import dataclass
from datetime import datetime

from nod_payments.domain.requests import currency as check_currency
from nodkit.errors import FailedPrecondition, InvalidArgument


@dataclass(frozen=True)
class Limits:
    max_single_minor: int | None
    max_daily_minor: int | None
    currency: str
    updated_at: datetime | None = None


def check_limits_request(max_single: int, max_daily: int, currency: str) -> Limits | None:
    """0 means no limit; no limit at all means the person has none (None)."""
    for field, value in (("max_single_minor", max_single), ("max_daily_minor", max_daily)):
        if value < 0:
            raise InvalidArgument(field, "must be 0 (no limit) or a positive amount")
    if not max_single and not max_daily:
        return None
    return Limits(max_single or None, max_daily or None, check_currency("currency", currency))


def _exceeded(message: str, limit: str, limits: Limits, maximum: int) -> FailedPrecondition:
    return FailedPrecondition(
        message,
        reason="LIMIT_EXCEEDED",
        limit=limit,
        max_minor=str(maximum),
        currency=limits.currency,
    )


def check_within_limits(
    limits: Limits | None, amount_minor: int, currency: str, spent_last_day_minor: int
) -> None:
    """`spent_last_day_minor`: the person's payments in the limits' currency
    that they said yes to in the last 24 hours, this one excluded."""
    if limits is None:
        return
    if currency != limits.currency:
        # Without exchange rates nod can't tell whether it is within the limits.
        raise FailedPrecondition(
            f"the person's payment limits are in {limits.currency}; a payment in {currency}"
            " can't be checked against them",
            reason="LIMIT_CURRENCY_MISMATCH",
            currency=limits.currency,
        )
    if limits.max_single_minor is not None and amount_minor > limits.max_single_minor:
        raise _exceeded(
            "the payment is over the person's limit for a single payment",
            "single",
            limits,
            limits.max_single_minor,
        )
    daily = limits.max_daily_minor
    if daily is not None and spent_last_day_minor + amount_minor > daily:
        raise _exceeded(
            "the payment would take the person over their daily limit", "daily", limits, daily
        )
