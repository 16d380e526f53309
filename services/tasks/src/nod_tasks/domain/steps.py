"""A step: one tool call, recorded RUNNING before it starts, then one end;
never run a second time (G5, G9)."""

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any


class StepState(StrEnum):
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    NOT_RUN = "not_run"
    UNCERTAIN = "uncertain"


class Resolution(StrEnum):
    HAPPENED = "happened"
    DID_NOT_HAPPEN = "did_not_happen"


@dataclass(frozen=True)
class StepRecord:
    task_id: str
    number: int
    call_id: str
    tool: str
    arguments: dict[str, Any]
    state: StepState
    result: dict[str, Any] | None
    reason: str
    claim_id: str | None
    approval_id: str | None
    payment_id: str | None
    resolution: Resolution | None
    started_at: datetime
    ended_at: datetime | None

    def to_json(self) -> dict[str, Any]:
        """The step as its events carry it."""
        return {
            "number": self.number,
            "tool": self.tool,
            "arguments": self.arguments,
            "state": self.state.value,
            "result": self.result,
            "reason": self.reason,
            "claim_id": self.claim_id,
            "approval_id": self.approval_id,
            "payment_id": self.payment_id,
            "resolution": self.resolution.value if self.resolution else None,
        }


@dataclass(frozen=True)
class StepEnd:
    """How a tool call ended: its state, what the model is told, and what it made."""

    state: StepState
    result: dict[str, Any]
    reason: str = ""
    claim_id: str | None = None
    approval_id: str | None = None
    payment_id: str | None = None


def operation_id(task_id: str, step: int) -> str:
    """A private entry's operation id and a proposal's or payment's request id:
    derived from (task, step), so a replayed step can never claim, propose or
    pay again — the services answer the first record."""
    return f"task:{task_id}:step:{step}"


def not_run(why: str) -> StepEnd:
    return StepEnd(StepState.NOT_RUN, {"outcome": "not_run", "why": why}, reason=why)


def failed(why: str, **result: Any) -> StepEnd:
    return StepEnd(StepState.FAILED, {"outcome": "failed", "why": why, **result}, reason=why)


def uncertain(why: str, **made: Any) -> StepEnd:
    """It may have reached the site or app: the person checks before anyone tries again."""
    what = f"{why}; it may have happened: the person must check before anyone tries again"
    return StepEnd(StepState.UNCERTAIN, {"outcome": "uncertain", "why": what}, reason=what, **made)
