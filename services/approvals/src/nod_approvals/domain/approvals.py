"""Approval and execution rules (G7), in plain Python.

The database enforces them (an update that only matches a PENDING,
unexpired approval; one execution row per approval); this module says what
a refused decision means and what one send can end as.
"""

import json
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from nodkit.errors import AlreadyExists, FailedPrecondition


class ApprovalState(StrEnum):
    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"
    CANCELLED = "cancelled"
    EXPIRED = "expired"


class ExecutionState(StrEnum):
    RUNNING = "running"
    DONE = "done"
    NOT_RUN = "not_run"
    FAILED = "failed"
    UNCERTAIN = "uncertain"


class Decision(StrEnum):
    YES = "yes"
    NO = "no"


@dataclass(frozen=True)
class ExecutionRecord:
    id: str
    approval_id: str
    instance_id: str
    state: ExecutionState
    result: str
    reason: str
    started_at: datetime
    finished_at: datetime | None


def shown_reason(reason: str, execution: ExecutionRecord | None) -> str:
    """Why it ended as it did: its execution's reason, else its own."""
    if execution is not None and execution.reason:
        return execution.reason
    return reason


@dataclass(frozen=True)
class EarlierRecord:
    """The earlier approval a possible duplicate repeats, as it is now."""

    id: str
    state: ApprovalState
    reason: str
    created_at: datetime
    decided_at: datetime | None
    execution: ExecutionRecord | None


@dataclass(frozen=True)
class ApprovalRecord:
    id: str
    task_id: str
    request_id: str
    account_id: str
    app: str
    action: str
    summary: str
    saved_action: str
    digest: str
    state: ApprovalState
    reason: str
    created_at: datetime
    expires_at: datetime
    decided_at: datetime | None
    updated_at: datetime
    execution: ExecutionRecord | None
    # Set when it repeats the saved action of an earlier approval of its
    # task (the first one): its yes then needs a second confirmation.
    earlier: EarlierRecord | None = None

    @property
    def possible_duplicate_of(self) -> str | None:
        return self.earlier.id if self.earlier else None

    @property
    def parameters(self) -> dict:
        """What it runs with; nothing once erased (its person removed)."""
        return json.loads(self.saved_action)["parameters"] if self.saved_action else {}

    @property
    def is_final(self) -> bool:
        """Nothing about it will change any more: watchers can stop."""
        if self.state == ApprovalState.PENDING:
            return False
        if self.state == ApprovalState.APPROVED:
            return self.execution is not None and self.execution.state != ExecutionState.RUNNING
        return True


def person(owner: str) -> str:
    """The actor recorded in the history for the person's own calls."""
    return f"person:{owner}"


def instance(instance_id: str) -> str:
    """The actor recorded for what a service instance does on its own."""
    return f"instance:{instance_id}"


# What each decision moves a pending approval to.
DECIDED = {Decision.YES: ApprovalState.APPROVED, Decision.NO: ApprovalState.REJECTED}

EXPIRED_REASON = "nobody decided in time; nothing runs"
DEFAULT_CANCEL_REASON = "the task was stopped"

_REFUSALS = {
    ApprovalState.APPROVED: ("the person already said yes to this action", "ALREADY_DECIDED_YES"),
    ApprovalState.REJECTED: ("the person already said no; nothing runs", "ALREADY_DECIDED_NO"),
    ApprovalState.CANCELLED: ("the task was stopped; nothing runs", "CANCELLED"),
    ApprovalState.EXPIRED: ("the approval expired before a decision; nothing runs", "EXPIRED"),
}


def unmarked_only(decision: Decision, confirmed_duplicate: bool) -> bool:
    """Whether this decision may only move an approval that is no possible
    duplicate: a yes to one needs the person's second confirmation."""
    return decision == Decision.YES and not confirmed_duplicate


def answer_to_late_decision(record: ApprovalRecord, decision: Decision) -> ApprovalRecord:
    """Called when the decision's conditional update matched nothing. The same
    decision again (two tabs, a resend) is answered with the current approval;
    anything else is refused, saying why. Either way nothing runs."""
    if record.state == DECIDED[decision]:
        return record
    if record.state == ApprovalState.PENDING and record.earlier is not None:
        raise FailedPrecondition(
            "this may repeat an earlier approval of the task; a yes needs confirm_duplicate",
            reason="DUPLICATE_NEEDS_CONFIRMATION",
            possible_duplicate_of=record.earlier.id,
        )
    message, reason = _REFUSALS[record.state]
    raise FailedPrecondition(message, reason=reason, state=record.state.value)


def answer_to_resent_proposal(
    existing: ApprovalRecord, *, task_id: str, saved_action: str, summary: str
) -> ApprovalRecord:
    """Called when the person's request id already made an approval. The same
    proposal again (a resend after a lost reply) is answered with it; other
    content under the same request id is refused, and nothing is written.
    The saved action covers account, app, action and normalised parameters."""
    if (existing.task_id, existing.saved_action, existing.summary) == (
        task_id,
        saved_action,
        summary,
    ):
        return existing
    raise AlreadyExists(
        "request_id already named another proposal", reason="REQUEST_ID_REUSED", field="request_id"
    )


@dataclass(frozen=True)
class Outcome:
    """How one execution ended."""

    state: ExecutionState
    result: str = ""
    reason: str = ""


def uncertain(reason: str) -> Outcome:
    return Outcome(
        ExecutionState.UNCERTAIN, reason=f"{reason}; it may have reached the app: check the app"
    )


def not_run(why: str) -> Outcome:
    return Outcome(ExecutionState.NOT_RUN, reason=f"{why}; nothing was sent")


@dataclass(frozen=True)
class WordsErased:
    """What erasing a removed person's words did."""

    # Approvals that had words erased.
    approvals: int
    # Approvals still pending or running, whose words stay for now.
    still_open: list[str]
    # Disconnected accounts whose label and settings were erased.
    accounts: int
