"""A person's payment limits: 0 is no limit; a payment exactly at a limit
goes ahead and one minor unit over is refused, naming which limit; the day's
total counts what the person already said yes to; a payment in another
currency can't be checked against them and is refused."""

import pytest

from nod_payments.domain.limits import Limits, check_limits_request, check_within_limits
from nodkit.errors import FailedPrecondition, InvalidArgument

BOTH = Limits(max_single_minor=5000, max_daily_minor=20000, currency="EUR")


# --- setting them ------------------------------------------------------------


def test_zero_means_no_limit_and_no_limit_at_all_means_none():
    assert check_limits_request(0, 0, "EUR") is None
    assert check_limits_request(5000, 0, "EUR") == Limits(5000, None, "EUR")
    assert check_limits_request(0, 20000, "EUR") == Limits(None, 20000, "EUR")
    assert check_limits_request(5000, 20000, "GBP") == Limits(5000, 20000, "GBP")


@pytest.mark.parametrize(
    ("single", "daily", "field"),
    [(-1, 0, "max_single_minor"), (100, -1, "max_daily_minor"), (-5, -5, "max_single_minor")],
)
def test_a_negative_limit_is_refused_naming_it(single, daily, field):
    with pytest.raises(InvalidArgument) as refused:
        check_limits_request(single, daily, "EUR")
    assert refused.value.field == field


@pytest.mark.parametrize("currency", ["eur", "EURO", "E1R", ""])
def test_limits_need_a_currency_code(currency):
    with pytest.raises(InvalidArgument) as refused:
        check_limits_request(5000, 0, currency)
    assert refused.value.field == "currency"


# --- checking a payment against them ---------------------------------------------


def test_a_person_without_limits_pays_any_amount():
    check_within_limits(None, 10**12, "JPY", 10**12)


def test_a_payment_exactly_at_the_single_limit_goes_ahead_one_unit_over_does_not():
    check_within_limits(BOTH, 5000, "EUR", 0)
    with pytest.raises(FailedPrecondition) as refused:
        check_within_limits(BOTH, 5001, "EUR", 0)
    assert refused.value.reason == "LIMIT_EXCEEDED"
    assert refused.value.metadata == {"limit": "single", "max_minor": "5000", "currency": "EUR"}


def test_a_payment_reaching_the_daily_limit_exactly_goes_ahead_one_unit_over_does_not():
    check_within_limits(BOTH, 4000, "EUR", 16000)
    with pytest.raises(FailedPrecondition) as refused:
        check_within_limits(BOTH, 4001, "EUR", 16000)
    assert refused.value.reason == "LIMIT_EXCEEDED"
    assert refused.value.metadata == {"limit": "daily", "max_minor": "20000", "currency": "EUR"}
    # A day already at its limit takes no more.
    with pytest.raises(FailedPrecondition) as refused:
        check_within_limits(BOTH, 1, "EUR", 20000)
    assert refused.value.metadata["limit"] == "daily"


def test_a_payment_over_both_limits_names_the_single_one():
    with pytest.raises(FailedPrecondition) as refused:
        check_within_limits(BOTH, 30000, "EUR", 19000)
    assert refused.value.metadata["limit"] == "single"


def test_a_daily_limit_alone_allows_any_single_payment_within_the_day():
    daily_only = Limits(max_single_minor=None, max_daily_minor=20000, currency="EUR")
    check_within_limits(daily_only, 20000, "EUR", 0)
    single_only = Limits(max_single_minor=5000, max_daily_minor=None, currency="EUR")
    check_within_limits(single_only, 5000, "EUR", 10**9)


def test_a_payment_in_another_currency_is_refused_however_small():
    with pytest.raises(FailedPrecondition) as refused:
        check_within_limits(BOTH, 1, "GBP", 0)
    assert refused.value.reason == "LIMIT_CURRENCY_MISMATCH"
    assert refused.value.metadata == {"currency": "EUR"}
