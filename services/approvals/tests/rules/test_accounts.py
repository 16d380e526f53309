"""Accounts: a label is bounded free text holding no card number; an account
without a label is named by where it sends; credentials are shown by name
only, masked, and never in a repr."""

from datetime import UTC, datetime

import pytest

from nod_approvals.domain.accounts import (
    DOTS,
    MAX_LABEL_LENGTH,
    AccountInput,
    AccountRecord,
    check_label,
    labelled,
)
from nodkit.errors import InvalidArgument

NOW = datetime(2025, 1, 2, 12, 0, tzinfo=UTC)
SECRET = "s3cr3t-value-never-shown"


def record(disconnected_at: datetime | None = None) -> AccountRecord:
    return AccountRecord(
        id="acc-1",
        app="webhook",
        label="Orders hook",
        settings={"url": "https://hooks.example/orders"},
        sealed_credentials={"token": SECRET, "secret": SECRET},
        created_at=NOW,
        disconnected_at=disconnected_at,
    )


def test_a_label_is_stripped_and_may_be_as_long_as_its_bound():
    assert check_label("  Orders hook \n") == "Orders hook"
    assert check_label("x" * MAX_LABEL_LENGTH) == "x" * MAX_LABEL_LENGTH
    assert check_label("") == ""


@pytest.mark.parametrize(
    "label",
    ["x" * (MAX_LABEL_LENGTH + 1), "orders\x00", "card 4242 4242 4242 4242"],
    ids=["too long", "NUL", "card number"],
)
def test_a_bad_label_is_refused_naming_the_field(label):
    with pytest.raises(InvalidArgument) as refused:
        check_label(label)
    assert refused.value.field == "account.label"


@pytest.mark.parametrize(
    ("label", "settings", "named"),
    [
        ("Orders hook", {"url": "https://hooks.example/orders"}, "Orders hook"),
        ("", {"url": "https://hooks.example/orders"}, "https://hooks.example/orders"),
        ("", {"from": "shop@example.com", "host": "smtp.example"}, "shop@example.com"),
        (
            "",
            {"url": "https://hooks.example/a", "from": "shop@example.com"},
            "https://hooks.example/a",
        ),
        ("", {}, "webhook"),
    ],
)
def test_an_account_without_a_label_is_named_by_where_it_sends(label, settings, named):
    given = AccountInput("webhook", label, settings, {"token": SECRET})
    named_account = labelled(given)
    assert named_account.label == named
    assert (named_account.app, named_account.settings) == ("webhook", settings)
    assert named_account.credentials == {"token": SECRET}


def test_credentials_are_shown_by_name_only_and_masked():
    assert record().masked_credentials == {"token": DOTS, "secret": DOTS}


def test_no_credential_value_is_in_a_repr():
    assert SECRET not in repr(record())
    assert SECRET not in repr(AccountInput("webhook", "", {}, {"token": SECRET}))


def test_an_account_is_connected_until_it_is_disconnected():
    assert record().connected
    assert not record(disconnected_at=NOW).connected
