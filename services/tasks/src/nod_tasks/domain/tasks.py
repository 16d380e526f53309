"""A task and its states, and what a refused change means (plain Python).

QUEUED -> RUNNING <-> WAITING -> DONE | FAILED | STOPPED | INTERRUPTED; an
ended task goes back to QUEUED only by the person's Continue. The database
makes every change with a conditional update (store/tasks.py).
"""

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from nodkit import validation
from nodkit.errors import FailedPrecondition, InvalidArgument

MAX_TEXT = 4000
MAX_ANSWER = 4000


class TaskState(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    WAITING = "waiting"
    DONE = "done"
    FAILED = "failed"
    STOPPED = "stopped"
    INTERRUPTED = "interrupted"


# Stop ends these; Continue restarts the others.
LIVE_STATES = frozenset({TaskState.QUEUED, TaskState.RUNNING, TaskState.WAITING})
ENDED_STATES = frozenset(
    {TaskState.DONE, TaskState.FAILED, TaskState.STOPPED, TaskState.INTERRUPTED}
)

CHECK_OR_CONTINUE = "check what happened, or say continue"
INTERRUPTED = f"nod restarted while this task was running: {CHECK_OR_CONTINUE}"
OWNER_GONE = f"the nod instance running this task stopped: {CHECK_OR_CONTINUE}"
STOPPED = "stopped by the person"


class WaitKind(StrEnum):
    DECISION = "decision"
    PAYMENT = "payment"
    PRIVATE_FORM = "private_form"
    ANSWER = "answer"
    CHECK = "check"


class FormKind(StrEnum):
    ONE_TIME_CODE = "one_time_code"
    PASSWORD = "password"
    LOGIN = "login"
    SECURITY_CODE = "security_code"


@dataclass(frozen=True)
class Wait:
    kind: WaitKind
    id: str
    prompt: str
    form_kind: FormKind | None = None
    origin: str = ""
    step: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "id": self.id,
            "prompt": self.prompt,
            "form_kind": self.form_kind.value if self.form_kind else None,
            "origin": self.origin,
            "step": self.step,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> "Wait | None":
        if not data:
            return None
        return cls(
            kind=WaitKind(data["kind"]),
            id=data["id"],
            prompt=data["prompt"],
            form_kind=FormKind(data["form_kind"]) if data.get("form_kind") else None,
            origin=data.get("origin", ""),
            step=data.get("step"),
        )


@dataclass(frozen=True)
class TaskRecord:
    id: str
    owner: str
    text: str
    state: TaskState
    message: str
    wait: Wait | None
    run: int
    steps: int
    session_id: str | None
    runner_instance: str | None
    created_at: datetime
    updated_at: datetime
    # The private forms the person filled: {form_id: {kind, item_id, picked}}.
    forms: dict[str, Any] = field(default_factory=dict)


def check_task_text(text: str, field_name: str = "text") -> str:
    text = validation.text(field_name, text, max_length=MAX_TEXT, required=True)
    return text.strip()


def check_answer(text: str) -> str:
    return validation.text("text", text, max_length=MAX_ANSWER, required=True).strip()


def refuse_unless_waiting_for(task: TaskRecord, kind: WaitKind, wait_id: str) -> Wait:
    """A form, answer or check that arrives late (the task was stopped, or
    no longer waits for it) starts nothing."""
    if task.state == TaskState.STOPPED:
        raise FailedPrecondition("this task was stopped; nothing was done", reason="TASK_STOPPED")
    wait = task.wait
    if task.state != TaskState.WAITING or wait is None or wait.kind != kind:
        raise FailedPrecondition(
            f"this task is not waiting for that (it is {task.state.value})",
            reason="NOT_WAITING",
            state=task.state.value,
        )
    if wait.id != wait_id:
        raise FailedPrecondition("this task is waiting for something else", reason="WAIT_MISMATCH")
    return wait


def refuse_unless_ended(task: TaskRecord) -> None:
    if task.state not in ENDED_STATES:
        raise FailedPrecondition(
            f"only an ended task can be continued (this one is {task.state.value})",
            reason="TASK_NOT_ENDED",
            state=task.state.value,
        )


def check_resolution_step(task: TaskRecord, step: int) -> Wait:
    if step <= 0:
        raise InvalidArgument("step", "must be the number of an uncertain step")
    return refuse_unless_waiting_for(task, WaitKind.CHECK, str(step))
