"""A task's history as its events: each move, each step as it started and
ended, each model request's attempts. Numbered 1, 2, ... per task, so a
watcher resumes after the last one it saw."""

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from nod_tasks.domain.looks import StepLook
from nod_tasks.domain.results import StepResult
from nod_tasks.domain.steps import Resolution, StepRecord, StepState
from nod_tasks.domain.tasks import TaskState, Wait


@dataclass(frozen=True)
class StepView:
    """A step as a person or a client is shown it: its result as the model was told."""

    number: int
    tool: str
    arguments: dict[str, Any]
    state: StepState
    result: dict[str, Any] | None
    reason: str
    claim_id: str | None
    approval_id: str | None
    payment_id: str | None
    resolution: Resolution | None
    started_at: datetime | None = None
    ended_at: datetime | None = None
    # For a reader: why it was not run or failed (domain.reasons), and what
    # the private form it entered from held.
    code: str = ""
    form_kind: str = ""
    # The last look at it (an uncertain step the person asked nod to look at).
    look: StepLook | None = None

    @classmethod
    def of(cls, step: StepRecord, look: StepLook | None = None) -> "StepView":
        return cls(
            number=step.number,
            tool=step.tool,
            arguments=dict(step.arguments),
            state=step.state,
            result=step.result.for_model() if step.result is not None else None,
            reason=step.reason,
            claim_id=step.claim_id,
            approval_id=step.approval_id,
            payment_id=step.payment_id,
            resolution=step.resolution,
            started_at=step.started_at,
            ended_at=step.ended_at,
            code=code_of(step.result),
            form_kind=form_kind_of(step.tool, step.arguments, step.result),
            look=look,
        )


def code_of(result: StepResult | None) -> str:
    return str(getattr(result, "code", ""))


def form_kind_of(tool: str, arguments: Mapping[str, Any], result: StepResult | None) -> str:
    """What the private form of an entry or an ask held: the entry's
    result says; an ask's arguments name it."""
    if (kind := str(getattr(result, "form_kind", ""))) or tool != "ask_private_form":
        return kind
    return str(arguments.get("kind", ""))


@dataclass(frozen=True)
class ModelAttempt:
    """One attempt of one model request (G10: every attempt is shown)."""

    request: int
    attempt: int
    # The HTTP status (200 for an answer), or 0 when there was no answer.
    status: int
    error: str
    wait_s: float
    retried: bool


@dataclass(frozen=True)
class TaskEvent:
    task_id: str
    number: int
    at: datetime
    kind: str
    # The task's state after it.
    state: TaskState
    message: str = ""
    # The person's own words in it, nothing of the service's (see the proto).
    person_words: str = ""
    wait: Wait | None = None
    step: StepView | None = None
    attempt: ModelAttempt | None = None
