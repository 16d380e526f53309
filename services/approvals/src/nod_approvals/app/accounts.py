"""The account use cases. Credentials are sealed before they reach SQL and
are opened only by the execution, right before sending."""

from sqlalchemy.ext.asyncio import AsyncEngine

from nod_approvals.adapters.connectors import Connectors
from nod_approvals.domain.accounts import AccountInput, AccountRecord, check_label, labelled
from nod_approvals.store import accounts as repo
from nodkit import validation
from nodkit.crypto import Sealer
from nodkit.errors import NotFound
from nodkit.logging import get_logger

log = get_logger("nod_approvals.accounts")

# Part of each sealed credential's associated data (with owner, row and name).
CREDENTIALS_TABLE = "accounts"


class Accounts:
    def __init__(self, engine: AsyncEngine, sealer: Sealer, connectors: Connectors) -> None:
        self._engine = engine
        self._sealer = sealer
        self._connectors = connectors

    async def _check(self, account: AccountInput) -> AccountInput:
        connector = self._connectors.for_app(account.app)
        label = check_label(account.label)
        settings = connector.check_settings(dict(account.settings))
        credentials = connector.check_credentials(dict(account.credentials))
        # Last: it looks the host up, which the checks above never need to.
        await connector.check_reachable(settings)
        return labelled(AccountInput(account.app, label, settings, credentials))

    async def connect(self, owner: str, account: AccountInput) -> AccountRecord:
        account = await self._check(account)
        account_id = repo.new_id()
        sealed = self._sealer.seal_fields(account.credentials, owner, CREDENTIALS_TABLE, account_id)
        async with self._engine.begin() as conn:
            record = await repo.insert_account(
                conn,
                owner,
                account_id,
                app=account.app,
                label=account.label,
                settings=account.settings,
                sealed_credentials=sealed,
            )
        log.info("account.connected", account_id=record.id, app=record.app)
        return record

    async def disconnect(self, owner: str, account_id: str) -> AccountRecord:
        """Repeating it answers the disconnected account again."""
        account_id = validation.uuid_id("account_id", account_id)
        async with self._engine.begin() as conn:
            record = await repo.disconnect(conn, owner, account_id)
            if record is None:
                record = await repo.get_account(conn, owner, account_id)
        if record is None:
            raise NotFound("no such account", reason="ACCOUNT_NOT_FOUND")
        log.info("account.disconnected", account_id=account_id)
        return record

    async def list_connected(self, owner: str) -> list[AccountRecord]:
        async with self._engine.connect() as conn:
            return await repo.list_connected(conn, owner)

    def open_credentials(self, owner: str, account: AccountRecord) -> dict[str, str]:
        return self._sealer.open_fields(
            account.sealed_credentials, owner, CREDENTIALS_TABLE, account.id
        )
