"""The values a timeline is made of: a line, what the services said of a
step, a task's whole timeline; and the tool names and notes the lines are
built from (keys only, never words a person reads)."""

import json
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from nod.approvals.v1 import approvals_pb2 as approvals
from nod.claims.v1 import claims_pb2 as claims
from nod.payments.v1 import payments_pb2 as payments
from nod.tasks.v1 import tasks_pb2 as tasks

# Lines built at once for a page: many ask a service about their claim,
# decision or payment, and one after another a long task's page waited
# for each answer in turn.
LINES_AT_ONCE = 8
STEP_EVENTS = frozenset({"step.started", "step.ended", "step.resolved", "step.looked"})
# What the person said, on these events: a question's answer, a Continue.
SAID_EVENTS = frozenset({"task.queued", "person.said"})
# Tool names are keys: which steps enter a private value, pay, or ask the
# person (and wait for them while they run).
ENTRY_TOOLS = frozenset({"enter_saved_login", "enter_from_private_form"})
SIGN_IN_TOOLS = frozenset({"enter_saved_login"})
PAY_TOOLS = frozenset({"pay", "confirm_payment"})
ASK_TOOLS = frozenset({"ask_private_form", "ask_person", "request_payment"})
WAITING_TOOLS = ASK_TOOLS | {"propose_app_action"}
# A step not run because of what the person answered (or a stop while it
# waited for them): it did ask.
ANSWERS_OF_THE_PERSON = frozenset({"PERSON_SAID_NO", "EXPIRED", "STOPPED"})
# Tools whose step changes or reads a page: the tasks service keeps a
# picture of the page after it (as nod_tasks.domain.pictures.PAGE_TOOLS says).
PAGE_TOOLS = frozenset(
    {
        "navigate", "click", "type_text", "select_option", "set_checked", "press_key",
        "scroll", "go_back", "switch_page", "read_page", "wait_for_page",
        "enter_saved_login", "enter_from_private_form", "pay", "confirm_payment",
    }
)  # fmt: skip
# Tools whose words name what their private form held.
FORM_TOOLS = frozenset({"enter_from_private_form", "ask_private_form"})
SIGN_IN_FORMS = frozenset({"password", "login"})
# The notes the tasks service writes on the event of an answer that are
# not the person's own words: a private form filled (the step says it) and
# a check of an uncertain step (its line says what they found; what they
# typed with it follows the prefix).


Check: TypeAlias = tasks.EntryCheck.ValueType
Paid: TypeAlias = tasks.PaidOutcome.ValueType


@dataclass
class Line:
    # The number of the last event the line was built from.
    number: int
    # The kind of line: step, model.attempt, task.ended, person.said.
    kind: str
    at: str
    title: str
    detail: str = ""
    badge: tuple[str, str] | None = None
    # For something that may have happened: what it means and what to do.
    explanation: str = ""
    extra: list[str] = field(default_factory=list)
    # The decision's or payment's own state beside the step's, e.g. "You
    # said yes" and "Done": what the person decided stays in view.
    more_badges: list[tuple[str, str]] = field(default_factory=list)
    # A step's number: its line's key (0: a line of its own).
    step: int = 0
    # Folded under the line: (label, text).
    folded: list[tuple[str, str]] = field(default_factory=list)
    # Folded too: the address of the picture of the page the step left.
    picture: str = ""
    # The time of day shown (`at` is the full time).
    clock: str = ""
    # What nod's last look at it found (an uncertain step), if it looked.
    look: "LookShown | None" = None


@dataclass(frozen=True)
class LookShown:
    """A look's evidence as the person reads it, under its step."""

    badge: tuple[str, str]
    # "nod looked at … on …: …"
    text: str
    # The page it saw (private values painted over), or "".
    picture: str


@dataclass
class Found:
    """What the services said of a step's claim, approval and payment."""

    claim: claims.Claim | None = None
    approval: approvals.Approval | None = None
    payment: payments.Payment | None = None
    # What could not be shown, in words: a service did not answer.
    silent: list[str] = field(default_factory=list)


@dataclass
class Timeline:
    lines: list[Line]
    # The last event's number: the live timeline resumes after it.
    after: int
    # The task as read after its events: at least as new as the last line.
    task: tasks.Task


def arguments_of(step: tasks.Step) -> dict[str, Any]:
    """The step's arguments as the model gave them (an object, else none)."""
    try:
        parsed = json.loads(step.arguments or "{}")
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}
