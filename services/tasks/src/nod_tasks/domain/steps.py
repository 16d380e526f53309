"""A step: one tool call, recorded RUNNING before it starts, then one end;
never run a second time (G5, G9).

What a step acts on is recorded with it from the start (the saved login it
enters, the private form, the payment), so however the step ends, even cut
off by a crash before its result was known, the rules still see it.
"""

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from functools import cached_property
from typing import Any

from nod_tasks.domain.results import Failed, MayHaveHappened, NotRun, StepResult


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
class Subject:
    """What a step acts on, known before it starts."""

    # The saved login it enters (enter_saved_login, or a picked login).
    login_id: str | None = None
    # The private form whose value it enters.
    form_id: str | None = None
    # The payment it pays.
    payment_id: str | None = None


NO_SUBJECT = Subject()


@dataclass(frozen=True)
class StepRecord:
    task_id: str
    number: int
    call_id: str
    tool: str
    # The model's arguments, as it gave them (any JSON object).
    arguments: Mapping[str, Any]
    state: StepState
    result: StepResult | None
    reason: str
    subject: Subject
    # The instance it is in flight on; None once it waits for the person
    # (then it belongs to nobody) and once it ended.
    runner_instance: str | None
    claim_id: str | None
    approval_id: str | None
    resolution: Resolution | None
    started_at: datetime
    ended_at: datetime | None

    @property
    def payment_id(self) -> str | None:
        return self.subject.payment_id

    @cached_property
    def call_key(self) -> str:
        """What makes two calls identical (domain.tools): made once per step,
        not for every later call of a long task."""
        return call_key(self.tool, self.arguments)


def call_key(name: str, arguments: Mapping[str, Any]) -> str:
    """The tool and its arguments, without the reason given for repeating."""
    kept = {k: v for k, v in arguments.items() if k != "new_action_reason"}
    return json.dumps([name, kept], sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class StepEnd:
    """How a tool call ended: its state, its result, and the ids it made."""

    state: StepState
    result: StepResult
    reason: str = ""
    claim_id: str | None = None
    approval_id: str | None = None
    # A payment it made (request_payment); pay's payment is its subject.
    payment_id: str | None = None


def operation_id(task_id: str, step: int) -> str:
    """A private entry's operation id and a proposal's or payment's request id:
    derived from (task, step), so a replayed step can never claim, propose or
    pay again — the services answer the first record."""
    return f"task:{task_id}:step:{step}"


def not_run(
    why: str,
    *,
    code: str = "",
    approval_id: str | None = None,
    payment_id: str | None = None,
) -> StepEnd:
    result = NotRun(why, code)
    return StepEnd(StepState.NOT_RUN, result, why, approval_id=approval_id, payment_id=payment_id)


def failed(
    why: str, *, code: str = "", nothing_typed: bool = False, payment_id: str = ""
) -> StepEnd:
    result = Failed(why, nothing_typed=nothing_typed, payment_id=payment_id, code=code)
    return StepEnd(StepState.FAILED, result, reason=why)


def uncertain(
    why: str,
    *,
    code: str = "",
    claim_id: str | None = None,
    approval_id: str | None = None,
    payment_id: str | None = None,
) -> StepEnd:
    """It may have reached the site or app: the person checks before anyone tries again."""
    what = f"{why}; it may have happened: the person must check before anyone tries again"
    return StepEnd(
        StepState.UNCERTAIN,
        MayHaveHappened(what, code),
        what,
        claim_id=claim_id,
        approval_id=approval_id,
        payment_id=payment_id,
    )


def done(
    result: StepResult, *, claim_id: str | None = None, payment_id: str | None = None
) -> StepEnd:
    return StepEnd(StepState.DONE, result, claim_id=claim_id, payment_id=payment_id)
