"""Account rules: each app checks its own settings and credentials; replies
show credential names only, masked. Plain Python; values are never logged."""

from dataclasses import dataclass, field
from datetime import datetime

from nod_approvals.connectors import Connectors
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


def check_account(account: AccountInput, connectors: Connectors) -> AccountInput:
    connector = connectors.for_app(account.app)
    label = validation.text("account.label", account.label, max_length=MAX_LABEL_LENGTH)
    settings = connector.check_settings(dict(account.settings))
    credentials = connector.check_credentials(dict(account.credentials))
    default_label = settings.get("url") or settings.get("from") or account.app
    return AccountInput(account.app, label.strip() or default_label, settings, credentials)
