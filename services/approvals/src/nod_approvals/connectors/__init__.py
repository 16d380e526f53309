"""The apps an account can connect to, one module each, looked up by name."""

from nod_approvals.connectors.base import Connector, Outcome, Send
from nod_approvals.connectors.smtp import SmtpConnector
from nod_approvals.connectors.webhook import WebhookConnector
from nod_approvals.settings import ApprovalsSettings
from nodkit.errors import InvalidArgument

__all__ = ["Connector", "Connectors", "Outcome", "Send", "build_connectors"]


class Connectors:
    def __init__(self, connectors: list[Connector]) -> None:
        self._by_app = {connector.app: connector for connector in connectors}

    def for_app(self, app: str, *, field: str = "account.app") -> Connector:
        try:
            return self._by_app[app]
        except KeyError:
            raise InvalidArgument(
                field, f"must be one of: {', '.join(sorted(self._by_app))}"
            ) from None

    def check_action(self, app: str, action: str, parameters: dict) -> dict:
        checks = self.for_app(app).actions
        if action not in checks:
            raise InvalidArgument("action", f"must be one of: {', '.join(sorted(checks))}")
        return checks[action](parameters)


def build_connectors(settings: ApprovalsSettings) -> Connectors:
    return Connectors(
        [
            WebhookConnector(timeout_s=settings.webhook_timeout_s),
            SmtpConnector(timeout_s=settings.smtp_timeout_s, ca_file=settings.smtp_ca_file),
        ]
    )
