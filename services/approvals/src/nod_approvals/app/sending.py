"""The moment of sending: a fresh read of the account (and of the execution
itself), the saved action checked against its digest, then one send."""

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncEngine

from nod_approvals.adapters.connectors import Connectors, Send
from nod_approvals.app.accounts import Accounts
from nod_approvals.domain.approvals import ApprovalRecord, Outcome, not_run
from nod_approvals.domain.saved_action import SavedAction
from nod_approvals.store import accounts as accounts_repo
from nod_approvals.store import executions as executions_repo
from nodkit import faults


@dataclass(frozen=True)
class Execution:
    id: str
    owner: str
    approval: ApprovalRecord


@dataclass
class Progress:
    # From here on the app may have seen something.
    sending: bool = False


async def send_once(
    engine: AsyncEngine,
    accounts: Accounts,
    connectors: Connectors,
    execution: Execution,
    instance_id: str,
    progress: Progress,
) -> Outcome:
    await faults.point("approvals.execution_running")
    approval = execution.approval
    async with engine.connect() as conn:
        running = await executions_repo.is_running(conn, execution.id, instance_id)
        account = await accounts_repo.get_account(
            conn, execution.owner, approval.account_id, connected_only=True
        )
    if not running:
        return not_run("it was already ended elsewhere")
    if account is None:
        return not_run("the account was disconnected before sending")
    saved = SavedAction(approval.saved_action, approval.digest)
    if not saved.is_intact():
        return not_run("the saved action no longer matches its digest")
    await faults.point("approvals.account_rechecked")
    connector = connectors.for_app(account.app)
    request = Send(
        execution_id=execution.id,
        action=approval.action,
        settings=account.settings,
        credentials=accounts.open_credentials(execution.owner, account),
        parameters_json=saved.body(),
    )
    progress.sending = True
    # The connector keeps to its own budget (connector.timeout_s): it alone
    # knows whether anything had left when time ran out.
    outcome = await connector.send(request)
    await faults.point("approvals.answer_received")
    return outcome
