"""A task, its state machine, and what a refused change means (plain Python).

Every change of a task's state is one of the moves in TRANSITIONS, which
names the states it may leave and the one it enters; the store makes each
one a conditional update (`WHERE state = <from>`) with its event written in
the same statement (store/tasks.py), so no move can leave a state it doesn't
name, and of two racing moves only one happens.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

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


class Move(StrEnum):
    TAKE = "take"  # an instance's worker starts running it
    WAIT = "wait"  # a step waits for the person or an app
    FINISH = "finish"  # the model finished
    FAIL = "fail"  # the run can't go on (the model provider, a step limit)
    INTERRUPT = "interrupt"  # its instance restarted, died or shut down mid-run
    ANSWER = "answer"  # what it waited for came: it runs again
    ASK_TO_CHECK = "ask_to_check"  # what it waited for may have happened: the person checks
    STOP = "stop"  # the person's Stop
    CONTINUE = "continue"  # the person's Continue after it ended


@dataclass(frozen=True)
class Transition:
    leaves: frozenset[TaskState]
    enters: TaskState
    # The kind of the event written with it.
    event: str


S = TaskState
TRANSITIONS: Mapping[Move, Transition] = {
    Move.TAKE: Transition(frozenset({S.QUEUED}), S.RUNNING, "task.running"),
    Move.WAIT: Transition(frozenset({S.RUNNING}), S.WAITING, "task.waiting"),
    Move.FINISH: Transition(frozenset({S.RUNNING}), S.DONE, "task.ended"),
    Move.FAIL: Transition(frozenset({S.RUNNING}), S.FAILED, "task.ended"),
    Move.INTERRUPT: Transition(frozenset({S.RUNNING}), S.INTERRUPTED, "task.ended"),
    Move.ANSWER: Transition(frozenset({S.WAITING}), S.QUEUED, "task.queued"),
    Move.ASK_TO_CHECK: Transition(frozenset({S.WAITING}), S.WAITING, "task.waiting"),
    Move.STOP: Transition(LIVE_STATES, S.STOPPED, "task.ended"),
    Move.CONTINUE: Transition(ENDED_STATES, S.QUEUED, "task.queued"),
}


def may_move(from_state: TaskState, to_state: TaskState) -> bool:
    """Whether any move leads from one state to the other."""
    return any(from_state in t.leaves and t.enters == to_state for t in TRANSITIONS.values())


CHECK_OR_CONTINUE = "check what happened, or say continue"
INTERRUPTED = f"nod restarted while this task was running: {CHECK_OR_CONTINUE}"
OWNER_GONE = f"the nod instance running this task stopped: {CHECK_OR_CONTINUE}"
LOST_RUN = f"nod lost track of this task's run: {CHECK_OR_CONTINUE}"
STOPPED = "stopped by the person"


def took_too_long(step_deadline_s: float) -> str:
    """A run cut off by its step deadline (NOD_TASKS_STEP_DEADLINE_S)."""
    return (
        f"a step of this task made no progress for {step_deadline_s:g} s and nod cut it off:"
        " check its last step (it may have reached the site or app), or say continue"
    )


class WaitKind(StrEnum):
    DECISION = "decision"
    PAYMENT = "payment"
    PRIVATE_FORM = "private_form"
    ANSWER = "answer"
    CHECK = "check"
    BANK_CONFIRMATION = "bank_confirmation"


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
    # A private form: the top page and the frame (of the field) it is for,
    # from the last page the task read, never from the model's words (G13).
    origin: str = ""
    # The step that waits (None: a form the task opened itself).
    step: int | None = None
    frame_origin: str = ""


@dataclass(frozen=True)
class FilledForm:
    """A private form the person filled: the one-time entry they typed, or
    the saved login they picked. Only its id is ever known here."""

    kind: FormKind
    item_id: str
    picked_login: bool


class Outcome(StrEnum):
    """How an ended task came out for the person (domain.outcomes judges it)."""

    DONE = "done"
    NOT_DONE = "not_done"
    MAY_HAVE_HAPPENED = "may_have_happened"


@dataclass(frozen=True)
class Judged:
    outcome: Outcome
    # Why it is not done: a code (domain.reasons) a reader words.
    reason: str = ""
    # The step it comes from (0: none).
    step: int = 0


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
    forms: Mapping[str, FilledForm] = field(default_factory=dict)
    # The W3C trace context of the call that last queued it, when tracing:
    # its run joins that call's trace.
    traceparent: str | None = None
    # Once it ended, how it came out (judged from its steps when read).
    outcome: Judged | None = None


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


def check_wait(step: int, why: str) -> Wait:
    """What the task waits for after a step that may have happened."""
    return Wait(
        WaitKind.CHECK,
        str(step),
        prompt=f"Step {step} may have happened: {why}. Check, then say what you found.",
        step=step,
    )
