"""What a step's tool call produced, as typed values.

These are the facts the rules read (did an entry go in, what its check
said, which payment it paid) and the one source of what the model is told:
`for_model()` makes the model's view from them; nothing is ever read back
from that view. Each is stored as JSON with a `type` tag (to_json /
from_json); a result without one was recorded by an earlier version and is
kept as the view it was (`Recorded`).
"""

import dataclasses
import typing
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar

from nod_tasks.domain.checks import Check, PaymentOutcome
from nod_tasks.domain.pages import Page, for_model, from_model_view
from nod_tasks.domain.tasks import FormKind

JsonObject = dict[str, Any]


@dataclass(frozen=True)
class NotRun:
    """Refused before anything was touched (a bad call, a rule, a no)."""

    TYPE: ClassVar[str] = "not_run"
    why: str
    # Why, as a code a reader words (domain.reasons); `why` is the model's.
    code: str = ""

    def for_model(self) -> JsonObject:
        return {"outcome": "not_run", "why": self.why}


@dataclass(frozen=True)
class Failed:
    """It definitely did not happen (or happened and failed, for an app action)."""

    TYPE: ClassVar[str] = "failed"
    why: str
    # Private entries: nothing was typed (a definite answer from the runner).
    nothing_typed: bool = False
    payment_id: str = ""
    code: str = ""

    def for_model(self) -> JsonObject:
        view: JsonObject = {"outcome": "failed", "why": self.why}
        if self.nothing_typed:
            view["entered"] = False
        if self.payment_id:
            view["payment_id"] = self.payment_id
        return view


@dataclass(frozen=True)
class MayHaveHappened:
    """No definite answer: it may have reached the site or app (G4)."""

    TYPE: ClassVar[str] = "uncertain"
    why: str
    code: str = ""

    def for_model(self) -> JsonObject:
        return {"outcome": "uncertain", "why": self.why}


@dataclass(frozen=True)
class PageShown:
    """navigate, read_page, click, type_text: the page after it."""

    TYPE: ClassVar[str] = "page"
    page: Page

    def for_model(self) -> JsonObject:
        return {"outcome": "done", "page": for_model(self.page)}


@dataclass(frozen=True)
class OpenedForm:
    """A private form the task opened itself (a saved login didn't get through)."""

    form_id: str
    kind: FormKind


@dataclass(frozen=True)
class Submitted:
    """A private entry went in and its submit was pressed; the page after it says `check`."""

    TYPE: ClassVar[str] = "submitted"
    check: Check
    claim_id: str
    page: Page
    # The saved login it entered, if any.
    login_id: str = ""
    opened_form: OpenedForm | None = None
    # What the private form it entered from held (enter_from_private_form).
    form_kind: str = ""

    def for_model(self) -> JsonObject:
        view: JsonObject = {
            "outcome": "submitted",
            "entered": True,
            "check": self.check.value,
            "claim_id": self.claim_id,
        }
        if self.login_id:
            view["login_id"] = self.login_id
        if self.opened_form is not None:
            view["private_form"] = {
                "form_id": self.opened_form.form_id,
                "kind": self.opened_form.kind.value,
                "state": "open",
            }
        return {**view, "page": for_model(self.page)}


@dataclass(frozen=True)
class Paid:
    """pay (or confirm_payment, on a review page): the card went in and pay
    (or place-order) was pressed; the page says `paid`."""

    TYPE: ClassVar[str] = "paid"
    payment_id: str
    paid: PaymentOutcome
    page: Page

    def for_model(self) -> JsonObject:
        return {
            "outcome": "submitted",
            "paid": self.paid.value,
            "payment_id": self.payment_id,
            "page": for_model(self.page),
        }


@dataclass(frozen=True)
class AwaitsOrder:
    """pay: the card went in and the shop shows its review page; nothing is
    charged yet and no outcome is recorded (the payment stays RUNNING under
    its card claim) until confirm_payment places the order, once."""

    TYPE: ClassVar[str] = "awaits_order"
    payment_id: str
    claim_id: str
    page: Page

    def for_model(self) -> JsonObject:
        return {
            "outcome": "submitted",
            "paid": "not_yet",
            "payment_id": self.payment_id,
            "next": (
                "the shop shows its review page: the order is not placed and nothing is"
                " paid yet. Check it, then place the order once with confirm_payment"
                " (this payment_id, the target of the place-order control)."
            ),
            "page": for_model(self.page),
        }


@dataclass(frozen=True)
class PaymentConfirmed:
    """request_payment: the person said yes; pay may now enter the card."""

    TYPE: ClassVar[str] = "payment_confirmed"
    payment_id: str

    def for_model(self) -> JsonObject:
        return {"outcome": "done", "payment_id": self.payment_id, "state": "confirmed"}


@dataclass(frozen=True)
class ActionEnded:
    """propose_app_action: the approved action's single execution ended."""

    TYPE: ClassVar[str] = "action"
    # The step's state as the execution ended it (done, failed, not_run, uncertain).
    outcome: str
    execution: str
    result: str
    why: str

    def for_model(self) -> JsonObject:
        return {
            "outcome": self.outcome,
            "execution": self.execution,
            "result": self.result,
            "why": self.why,
        }


@dataclass(frozen=True)
class FormFilled:
    TYPE: ClassVar[str] = "form_filled"
    form_id: str
    kind: str
    how: str

    def for_model(self) -> JsonObject:
        return {"outcome": "done", "form_id": self.form_id, "kind": self.kind, "filled": self.how}


@dataclass(frozen=True)
class Answered:
    TYPE: ClassVar[str] = "answered"
    answer: str

    def for_model(self) -> JsonObject:
        return {"outcome": "done", "answer": self.answer}


class Claimed(StrEnum):
    """What the model said of the task when it finished; the steps' own
    results may overrule it (domain.outcomes)."""

    DONE = "done"
    NOT_DONE = "not_done"


@dataclass(frozen=True)
class Finished:
    TYPE: ClassVar[str] = "finished"
    message: str
    claimed: Claimed = Claimed.DONE

    def for_model(self) -> JsonObject:
        return {"outcome": "done", "message": self.message}


@dataclass(frozen=True)
class Recorded:
    """A result an earlier version recorded as the model's view only."""

    TYPE: ClassVar[str] = "recorded"
    view: JsonObject

    def for_model(self) -> JsonObject:
        return self.view


StepResult = (
    NotRun
    | Failed
    | MayHaveHappened
    | PageShown
    | Submitted
    | Paid
    | AwaitsOrder
    | PaymentConfirmed
    | ActionEnded
    | FormFilled
    | Answered
    | Finished
    | Recorded
)
KINDS: dict[str, type] = {kind.TYPE: kind for kind in typing.get_args(StepResult)}


def page_of(result: StepResult | None) -> Page | None:
    """The page a step's result shows, if any."""
    if isinstance(result, PageShown | Submitted | Paid | AwaitsOrder):
        return result.page
    if isinstance(result, Recorded) and isinstance(result.view.get("page"), dict):
        return from_model_view(result.view["page"])
    return None


def _encode(value: Any) -> Any:
    if isinstance(value, Page):
        return for_model(value)
    if isinstance(value, StrEnum):
        return value.value
    if dataclasses.is_dataclass(value):
        return {f.name: _encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return value


def _decode(kind: Any, value: Any) -> Any:
    if value is None:
        return None
    options = [k for k in typing.get_args(kind) if k is not type(None)] or [kind]
    target = options[0]
    if target is Page:
        return from_model_view(value)
    if isinstance(target, type) and issubclass(target, StrEnum):
        return target(value)
    if dataclasses.is_dataclass(target):
        hints = typing.get_type_hints(target)
        made = typing.cast(type, target)
        return made(**{name: _decode(hints[name], item) for name, item in value.items()})
    return value


def to_json(result: StepResult) -> JsonObject:
    if isinstance(result, Recorded):
        return result.view
    return {"type": result.TYPE, **_encode(result)}


def from_json(data: JsonObject | None) -> StepResult | None:
    if data is None:
        return None
    kind = KINDS.get(str(data.get("type", "")))
    if kind is None or kind is Recorded:
        return Recorded(data)
    fields = {k: v for k, v in data.items() if k != "type"}
    return typing.cast(StepResult, _decode(kind, fields))
