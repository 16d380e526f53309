"""The tools the model can use, each stated once: its description and
argument schema (as the OpenAI tool-calling protocol takes them), what a
cut-off call means, whether it waits for the person, and what it acts on.
Then the argument checks and the identical-call rule. Plain Python; the
handlers live in app/tools and are paired with these in app/tools/registry.py."""

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from nod_tasks.domain import steps
from nod_tasks.domain.logins import types_secret
from nod_tasks.domain.reasons import Reason
from nod_tasks.domain.steps import NO_SUBJECT, StepEnd, StepRecord, Subject, call_key
from nod_tasks.domain.tasks import FilledForm

Arguments = dict[str, Any]
Forms = Mapping[str, FilledForm]

TARGET = {
    "type": "string",
    "description": "an element ref from the last page read (e.g. e12), or a CSS selector",
}
TARGETS = {
    "type": "object",
    "description": "value field -> the page field it goes into (a target)",
    "additionalProperties": TARGET,
}
NEW_ACTION = {
    "type": "string",
    "description": "only when repeating an earlier identical call: why this is a new action",
}


class CutOff(StrEnum):
    """What a call cut off mid-way (Stop, a crash, an internal error) means."""

    # It touched nothing outside the page: it simply failed.
    NOTHING_HAPPENED = "nothing_happened"
    # It may have reached a site or an app: UNCERTAIN, the person checks.
    MAY_HAVE_HAPPENED = "may_have_happened"


def _no_subject(arguments: Arguments, forms: Forms) -> Subject:
    return NO_SUBJECT


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    parameters: dict[str, Any]
    required: tuple[str, ...] = ()
    cut_off: CutOff = CutOff.NOTHING_HAPPENED
    # Its step stays RUNNING while the task waits for the person (a form,
    # an answer, a decision, a payment's yes).
    waits: bool = False
    # What it acts on, from its checked arguments, recorded before it starts.
    subject: Callable[[Arguments, Forms], Subject] = _no_subject
    # It types a private value into a page, under a claim (G1).
    enters_private: bool = False

    def schema(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": {
                    "type": "object",
                    "properties": {**self.parameters, "new_action_reason": NEW_ACTION},
                    "required": list(self.required),
                },
            },
        }


def _saved_login(arguments: Arguments, forms: Forms) -> Subject:
    """The saved login it signs in with (G6); the first page of a two-step
    sign-in, where only the username goes in, signs in with nothing."""
    if not types_secret(arguments["fields"]):
        return NO_SUBJECT
    return Subject(login_id=str(arguments["login_id"]))


def _form_entry(arguments: Arguments, forms: Forms) -> Subject:
    form_id = str(arguments["form_id"])
    form = forms.get(form_id)
    picked = form is not None and form.picked_login and types_secret(arguments["fields"])
    return Subject(form_id=form_id, login_id=form.item_id if form and picked else None)


def _payment(arguments: Arguments, forms: Forms) -> Subject:
    return Subject(payment_id=str(arguments["payment_id"]))


MAY = CutOff.MAY_HAVE_HAPPENED
TOOLS = [
    Tool("read_page", "Read the current page again (always allowed).", {}),
    Tool("navigate", "Go to a web address (http or https).", {"url": {"type": "string"}}, ("url",)),
    # A click can send a form.
    Tool("click", "Click a button or link.", {"target": TARGET}, ("target",), cut_off=MAY),
    Tool(
        "type_text",
        "Type ordinary (not private) text into a field. Private fields are refused.",
        {"target": TARGET, "text": {"type": "string"}},
        ("target", "text"),
    ),
    Tool(
        "select_option",
        "Choose an option of a select, combobox or radio group (by its label as the page"
        " read lists it).",
        {"target": TARGET, "option": {"type": "string"}},
        ("target", "option"),
    ),
    Tool(
        "set_checked",
        "Check or uncheck a checkbox, radio or switch.",
        {"target": TARGET, "checked": {"type": "boolean"}},
        ("target", "checked"),
    ),
    # Enter in a form can send it, as a click can.
    Tool(
        "press_key",
        "Press a key (Enter, Escape, Tab, ArrowDown, ...) in a field, or on the page when"
        " no target is given. Enter in a form sends it.",
        {"key": {"type": "string"}, "target": TARGET},
        ("key",),
        cut_off=MAY,
    ),
    Tool(
        "scroll",
        "Scroll an element into view, or the page by some screens (negative: up).",
        {"target": TARGET, "pages": {"type": "integer"}},
    ),
    Tool("go_back", "Go back to the previous page (nothing is sent again).", {}),
    Tool(
        "wait_for_page",
        "Wait (at most a few seconds) for the page to finish loading and settle, then read"
        " it (always allowed).",
        {},
    ),
    Tool(
        "switch_page",
        "Turn to another page the site opened (a popup or tab, by its page_id from the"
        " page read's pages).",
        {"page_id": {"type": "string"}},
        ("page_id",),
    ),
    Tool(
        "enter_saved_login",
        "Sign in with one of the person's saved logins (by its id from the list of saved"
        " items). nod types the values itself; you never see them. Value fields: username,"
        " password, totp_code.",
        {"login_id": {"type": "string"}, "fields": TARGETS, "submit": TARGET},
        ("login_id", "fields"),
        cut_off=MAY,
        subject=_saved_login,
        enters_private=True,
    ),
    Tool(
        "ask_private_form",
        "Ask the person to type a one-time code, a password or a card security code (or pick"
        " a saved login) in nod's private form. The task waits; you get the form's id, never"
        " the value. The value is for the page you last read, and only there: name the"
        " field it goes into (field) when that field is in a frame.",
        {
            "kind": {
                "type": "string",
                "enum": ["one_time_code", "password", "login", "security_code"],
            },
            "reason": {"type": "string"},
            "field": {
                "type": "string",
                "description": "the ref (from the last page read) of the field the value goes into",
            },
        },
        ("kind", "reason"),
        waits=True,
    ),
    Tool(
        "enter_from_private_form",
        "Enter what the person gave in a private form (by the form's id). Value fields: code"
        " (one-time code), username/password (password or picked login).",
        {"form_id": {"type": "string"}, "fields": TARGETS, "submit": TARGET},
        ("form_id", "fields"),
        cut_off=MAY,
        subject=_form_entry,
        enters_private=True,
    ),
    Tool(
        "propose_app_action",
        "Propose an action in one of the person's connected apps (by account id). The task"
        " waits for the person's yes; then the action runs once and you get its outcome.",
        {
            "account_id": {"type": "string"},
            "action": {"type": "string"},
            "parameters": {"type": "object"},
            "summary": {"type": "string", "description": "what it does, for the person"},
        },
        ("account_id", "action", "parameters", "summary"),
        cut_off=MAY,
        waits=True,
    ),
    Tool(
        "request_payment",
        "Ask the person to say yes to a payment with a saved card (by its id). The task waits"
        " for the yes; then use pay. The card goes only to the merchant's pages (and the card"
        " fields they embed); a checkout that sends the card to a payment page elsewhere must"
        " name that page's origin in hosted_payment_origins, for the person to see.",
        {
            "merchant_origin": {"type": "string"},
            "hosted_payment_origins": {"type": "array", "items": {"type": "string"}},
            "amount_minor": {"type": "integer", "description": "in cents"},
            "currency": {"type": "string", "description": "ISO 4217, e.g. EUR"},
            "description": {"type": "string"},
            "card_id": {"type": "string"},
            "order_reference": {"type": "string"},
        },
        ("merchant_origin", "amount_minor", "currency", "description", "card_id"),
        cut_off=MAY,
        waits=True,
    ),
    Tool(
        "pay",
        "Enter the saved card of a payment the person said yes to, and press pay (or the"
        " card step's continue). Value fields: number, expiry (or expiry_month and"
        " expiry_year, e.g. two selects), holder_name, security_code (the last from a"
        " private form of kind security_code, named by security_code_form_id). When the"
        " shop then shows a review page, the result says paid: not_yet: place the order"
        " with confirm_payment.",
        {
            "payment_id": {"type": "string"},
            "fields": TARGETS,
            "submit": TARGET,
            "security_code_form_id": {"type": "string"},
        },
        ("payment_id", "fields", "submit"),
        cut_off=MAY,
        subject=_payment,
        enters_private=True,
    ),
    # Pressing place-order charges the card: cut off, it may have.
    Tool(
        "confirm_payment",
        "Place the order of a payment whose card pay entered and whose shop then showed a"
        " review page (pay said paid: not_yet): press the page's place-order control"
        " (target), once per payment; the result says paid, declined or unknown.",
        {"payment_id": {"type": "string"}, "target": TARGET},
        ("payment_id", "target"),
        cut_off=MAY,
        subject=_payment,
    ),
    Tool(
        "ask_person",
        "Ask the person a question; the task waits for the answer.",
        {"question": {"type": "string"}},
        ("question",),
        waits=True,
    ),
    Tool(
        "finish",
        "End the task with a message for the person. outcome: done when what the person"
        " asked happened, not_done when it didn't (say why in the message).",
        {
            "message": {"type": "string"},
            "outcome": {"type": "string", "enum": ["done", "not_done"]},
        },
    ),
]
BY_NAME = {tool.name: tool for tool in TOOLS}
# Reading, waiting and scrolling change nothing: repeating them is never a
# second action.
ALWAYS_ALLOWED = frozenset({"read_page", "wait_for_page", "scroll"})


class BadToolCall(Exception):
    """What to tell the model about a call that can't run; nothing was touched."""


def check_call(name: str, arguments: Any) -> Arguments:
    """The call's arguments, checked against its tool's schema."""
    tool = BY_NAME.get(name)
    if tool is None:
        raise BadToolCall(f"there is no tool named {name!r}")
    if not isinstance(arguments, dict):
        raise BadToolCall("arguments must be a JSON object")
    missing = [key for key in tool.required if key not in arguments]
    if missing:
        raise BadToolCall(f"missing argument(s): {', '.join(missing)}")
    unknown = sorted(set(arguments) - set(tool.parameters) - {"new_action_reason"})
    if unknown:
        raise BadToolCall(f"unknown argument(s): {', '.join(unknown)}")
    for key, spec in tool.parameters.items():
        if key in arguments and not _is_a(arguments[key], spec):
            kind = spec["type"]
            article = "an" if kind[0] in "aeiou" else "a"
            raise BadToolCall(f"{key} must be {article} {kind}")
    return arguments


def _is_a(value: Any, spec: dict[str, Any]) -> bool:
    kind = spec["type"]
    if kind == "string":
        return isinstance(value, str) and (not spec.get("enum") or value in spec["enum"])
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "object":
        if not isinstance(value, dict):
            return False
        inner = spec.get("additionalProperties")
        return inner is None or all(_is_a(item, inner) for item in value.values())
    if kind == "array":
        if not isinstance(value, list):
            return False
        inner = spec.get("items")
        return inner is None or all(_is_a(item, inner) for item in value)
    return True


def identical_earlier_step(
    name: str, arguments: Mapping[str, Any], earlier: list[StepRecord]
) -> StepRecord | None:
    """The earlier step this call repeats, unless the model said why it is a
    new action (or it only reads the page): then it may run."""
    if name in ALWAYS_ALLOWED or str(arguments.get("new_action_reason", "")).strip():
        return None
    wanted = call_key(name, arguments)
    return next((s for s in earlier if s.call_key == wanted), None)


# The most of a call's arguments a step records (JSON characters).
MAX_ARGUMENTS = 20_000
MAX_NAME = 100


@dataclass(frozen=True)
class Planned:
    """A tool call as its step will record it: the tool's name and arguments
    as they can be stored, what it acts on, and, if it is refused before
    anything runs, why (the step then ends NOT_RUN at once)."""

    name: str
    arguments: Arguments
    subject: Subject = NO_SUBJECT
    tool: Tool | None = None
    refused: str = ""
    refused_code: str = ""


def _has_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_has_nul(k) or _has_nul(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_nul(item) for item in value)
    return False


def recordable_name(name: str) -> str:
    """A name as a text column can hold it (no NUL), bounded."""
    return name.replace("\x00", "")[:MAX_NAME]


BAD = Reason.BAD_ARGUMENTS


def plan_call(
    name: str, arguments: Arguments | None, earlier: list[StepRecord], forms: Forms
) -> Planned:
    recorded = recordable_name(name)
    if arguments is None:
        return Planned(
            recorded, {}, refused="the arguments were not a JSON object", refused_code=BAD
        )
    if _has_nul(arguments) or len(json.dumps(arguments)) > MAX_ARGUMENTS:
        why = f"the arguments must hold no NUL characters and be at most {MAX_ARGUMENTS} long"
        return Planned(recorded, {}, refused=why, refused_code=BAD)
    try:
        checked = check_call(name, arguments)
    except BadToolCall as bad:
        return Planned(recorded, arguments, refused=str(bad), refused_code=BAD)
    repeated = identical_earlier_step(name, checked, earlier)
    if repeated is not None:
        why = (
            f"identical to step {repeated.number}, which is never run again;"
            " give new_action_reason if this is a new action"
        )
        return Planned(name, checked, refused=why, refused_code=Reason.REPEATS_A_STEP)
    tool = BY_NAME[name]
    return Planned(name, checked, tool.subject(checked, forms), tool)


def cut_off_end(tool_name: str, why: str) -> StepEnd:
    """How a step cut off mid-way ends: by what its tool may have done."""
    tool = BY_NAME.get(tool_name)
    if tool is not None and tool.cut_off == CutOff.MAY_HAVE_HAPPENED:
        return steps.uncertain(why)
    return steps.failed(why)


def waits(step: StepRecord) -> bool:
    """Whether the step's tool is one that waits for the person."""
    tool = BY_NAME.get(step.tool)
    return tool is not None and tool.waits


def places_order(step: StepRecord) -> bool:
    """A step that pressed (or may have pressed) a payment's place-order control."""
    return step.tool == "confirm_payment" and step.subject.payment_id is not None


def is_card_entry(step: StepRecord) -> bool:
    """A step that entered (or may have entered) a payment's card."""
    tool = BY_NAME.get(step.tool)
    return tool is not None and tool.enters_private and step.subject.payment_id is not None
