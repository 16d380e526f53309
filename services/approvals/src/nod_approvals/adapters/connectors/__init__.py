"""The apps an account can connect to, one module each, looked up by name."""

from collections.abc import Sequence

from nod_approvals.adapters.connectors.base import Connector, Send
from nodkit.errors import InvalidArgument

__all__ = ["Connector", "Connectors", "Send"]


class Connectors:
    def __init__(self, connectors: Sequence[Connector]) -> None:
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
