"""Propose: a task asks to run an app action. It is frozen right here
(canonical JSON and its digest) and waits for the person's decision. The
caller's request id makes it once: a resend finds the first approval."""

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncEngine

from nod_approvals.adapters.connectors import Connectors
from nod_approvals.domain.approvals import ApprovalRecord, answer_to_resent_proposal, person
from nod_approvals.domain.saved_action import SavedAction, normalise, parameters_json
from nod_approvals.store import accounts as accounts_repo
from nod_approvals.store import approvals as repo
from nodkit import validation
from nodkit.errors import FailedPrecondition, NotFound
from nodkit.logging import get_logger

log = get_logger("nod_approvals.proposals")

MAX_SUMMARY = 2000


@dataclass(frozen=True)
class Proposal:
    task_id: str
    account_id: str
    action: str
    parameters: dict
    summary: str
    request_id: str


class Proposals:
    def __init__(self, engine: AsyncEngine, connectors: Connectors, *, ttl_s: float) -> None:
        self._engine = engine
        self._connectors = connectors
        self._ttl_s = ttl_s

    async def propose(self, owner: str, proposal: Proposal) -> ApprovalRecord:
        task_id = validation.printable_id("task_id", proposal.task_id)
        request_id = validation.printable_id("request_id", proposal.request_id)
        account_id = validation.uuid_id("account_id", proposal.account_id)
        summary = validation.text(
            "summary", proposal.summary, max_length=MAX_SUMMARY, required=True
        )
        parameters = normalise(proposal.parameters)
        parameters_json(parameters)  # bounds the size before any other work
        async with self._engine.begin() as conn:
            account = await accounts_repo.get_account(conn, owner, account_id)
            if account is None:
                raise NotFound("no such account", reason="ACCOUNT_NOT_FOUND")
            parameters = self._connectors.check_action(account.app, proposal.action, parameters)
            saved = SavedAction.freeze(
                app=account.app,
                account_id=account_id,
                action=proposal.action,
                parameters=parameters,
            )
            approval_id = await repo.insert_approval(
                conn,
                owner,
                self._ttl_s,
                task_id=task_id,
                request_id=request_id,
                account_id=account_id,
                app=account.app,
                action=proposal.action,
                summary=summary,
                saved_action=saved.text,
                digest=saved.digest,
            )
            if approval_id is None:
                # Nothing was written: the request id had made an approval
                # already (a resend), or else the account is disconnected.
                existing = await repo.find_by_request(conn, owner, request_id)
                if existing is None:
                    raise FailedPrecondition(
                        "the account was disconnected", reason="ACCOUNT_DISCONNECTED"
                    )
                record = answer_to_resent_proposal(
                    existing, task_id=task_id, saved_action=saved.text, summary=summary
                )
                log.info("approval.proposal_resent", approval_id=record.id, task_id=task_id)
                return record
            await repo.record_proposed(conn, approval_id, actor=person(owner))
            record = await repo.get_approval(conn, owner, approval_id)
        log.info("approval.proposed", approval_id=record.id, task_id=task_id, digest=saved.digest)
        return record
