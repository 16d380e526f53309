"""The moment of sending: a fresh read of the account (and of the execution
itself), the saved action checked against its digest, then one send."""

import asyncio
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncEngine

from nod_approvals import accounts_repository, executions_repository
from nod_approvals.accounts_app import Accounts
from nod_approvals.connectors import Connectors, Outcome, Send
from nod_approvals.connectors.base import uncertain
from nod_approvals.domain import ApprovalRecord, ExecutionState
from nod_approvals.saved_action import SavedAction


@dataclass(frozen=True)
class Execution:
    id: str
    owner: str
    approval: ApprovalRecord


@dataclass
class Progress:
    # From here on the app may have seen something.
    sending: bool = False


def _not_run(why: str) -> Outcome:
    return Outcome(ExecutionState.NOT_RUN, reason=f"{why}; nothing was sent")


async def send_once(
    engine: AsyncEngine,
    accounts: Accounts,
    connectors: Connectors,
    execution: Execution,
    instance_id: str,
    progress: Progress,
) -> Outcome:
    approval = execution.approval
    async with engine.connect() as conn:
        running = await executions_repository.is_running(conn, execution.id, instance_id)
        account = await accounts_repository.get_account(
            conn, execution.owner, approval.account_id, connected_only=True
        )
    if not running:
        return _not_run("it was already ended elsewhere")
    if account is None:
        return _not_run("the account was disconnected before sending")
    saved = SavedAction(approval.saved_action, approval.digest)
    if not saved.is_intact():
        return _not_run("the saved action no longer matches its digest")
    connector = connectors.for_app(account.app)
    request = Send(
        execution_id=execution.id,
        action=approval.action,
        settings=account.settings,
        credentials=accounts.open_credentials(execution.owner, account),
        parameters_json=saved.body(),
    )
    progress.sending = True
    try:
        async with asyncio.timeout(connector.timeout_s):
            return await connector.send(request)
    except TimeoutError:
        return uncertain(f"the app gave no answer within {connector.timeout_s:g} s")
