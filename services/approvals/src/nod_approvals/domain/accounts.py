"""Account rules: each app checks its own settings and credentials (its
connector); replies show credential names only, masked. Values are never logged."""

from dataclasses import dataclass, field
from datetime import datetime

from nodkit import validation

MAX_LABEL_LENGTH = 200
DOTS = "••••••••"


@dataclass(frozen=True)
class AccountInput:
    app: str
    label: str
    settings: dict[str, str]
    credentials: dict[str, str] = field(repr=False)


@dataclass(frozen=True)
class AccountRecord:
    id: str
    app: str
    label: str
    settings: dict[str, str]
    # {name: sealed value}; only the names are ever shown.
    sealed_credentials: dict[str, str] = field(repr=False)
    created_at: datetime
    disconnected_at: datetime | None

    @property
    def connected(self) -> bool:
        return self.disconnected_at is None

    @property
    def masked_credentials(self) -> dict[str, str]:
        return dict.fromkeys(self.sealed_credentials, DOTS)


def check_label(label: str) -> str:
    return validation.text("account.label", label, max_length=MAX_LABEL_LENGTH).strip()


def labelled(account: AccountInput) -> AccountInput:
    """Without a label of its own, an account is named by where it sends."""
    label = account.label or account.settings.get("url") or account.settings.get("from")
    return AccountInput(account.app, label or account.app, account.settings, account.credentials)
