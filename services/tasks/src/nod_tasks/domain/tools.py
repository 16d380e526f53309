"""The tools the model can use: their descriptions and argument schemas (as
the OpenAI tool-calling protocol takes them), argument checks, and the
identical-call rule. Plain Python."""

import json
from dataclasses import dataclass
from typing import Any

from nod_tasks.domain.steps import StepRecord

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


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    parameters: dict[str, Any]
    required: tuple[str, ...] = ()

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


TOOLS = [
    Tool("read_page", "Read the current page again (always allowed).", {}),
    Tool("navigate", "Go to a web address (http or https).", {"url": {"type": "string"}}, ("url",)),
    Tool("click", "Click a button or link.", {"target": TARGET}, ("target",)),
    Tool(
        "type_text",
        "Type ordinary (not private) text into a field. Private fields are refused.",
        {"target": TARGET, "text": {"type": "string"}},
        ("target", "text"),
    ),
    Tool(
        "enter_saved_login",
        "Sign in with one of the person's saved logins (by its id from the list of saved"
        " items). nod types the values itself; you never see them. Value fields: username,"
        " password, totp_code.",
        {"login_id": {"type": "string"}, "fields": TARGETS, "submit": TARGET},
        ("login_id", "fields"),
    ),
    Tool(
        "ask_private_form",
        "Ask the person to type a one-time code, a password or a card security code (or pick"
        " a saved login) in nod's private form. The task waits; you get the form's id, never"
        " the value.",
        {
            "kind": {
                "type": "string",
                "enum": ["one_time_code", "password", "login", "security_code"],
            },
            "reason": {"type": "string"},
        },
        ("kind", "reason"),
    ),
    Tool(
        "enter_from_private_form",
        "Enter what the person gave in a private form (by the form's id). Value fields: code"
        " (one-time code), username/password (password or picked login).",
        {"form_id": {"type": "string"}, "fields": TARGETS, "submit": TARGET},
        ("form_id", "fields"),
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
    ),
    Tool(
        "request_payment",
        "Ask the person to say yes to a payment with a saved card (by its id). The task waits"
        " for the yes; then use pay.",
        {
            "merchant_origin": {"type": "string"},
            "amount_minor": {"type": "integer", "description": "in cents"},
            "currency": {"type": "string", "description": "ISO 4217, e.g. EUR"},
            "description": {"type": "string"},
            "card_id": {"type": "string"},
            "order_reference": {"type": "string"},
        },
        ("merchant_origin", "amount_minor", "currency", "description", "card_id"),
    ),
    Tool(
        "pay",
        "Enter the saved card of a payment the person said yes to, and press pay. Value"
        " fields: number, expiry, holder_name, security_code (the last from a private form"
        " of kind security_code, named by security_code_form_id).",
        {
            "payment_id": {"type": "string"},
            "fields": TARGETS,
            "submit": TARGET,
            "security_code_form_id": {"type": "string"},
        },
        ("payment_id", "fields", "submit"),
    ),
    Tool(
        "ask_person",
        "Ask the person a question; the task waits for the answer.",
        {"question": {"type": "string"}},
        ("question",),
    ),
    Tool("finish", "End the task with a message for the person.", {"message": {"type": "string"}}),
]
BY_NAME = {tool.name: tool for tool in TOOLS}
ALWAYS_ALLOWED = frozenset({"read_page"})


class BadToolCall(Exception):
    """What to tell the model about a call that can't run; nothing was touched."""


def check_call(name: str, arguments: Any) -> dict[str, Any]:
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
            raise BadToolCall(f"{key} must be a {spec['type']}")
    return arguments


def _is_a(value: Any, spec: dict[str, Any]) -> bool:
    kind = spec["type"]
    if kind == "string":
        return isinstance(value, str) and (not spec.get("enum") or value in spec["enum"])
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "object":
        if not isinstance(value, dict):
            return False
        inner = spec.get("additionalProperties")
        return inner is None or all(_is_a(item, inner) for item in value.values())
    return True


def canonical(name: str, arguments: dict[str, Any]) -> str:
    """What makes two calls identical: the tool and its arguments, without
    the reason given for repeating."""
    kept = {k: v for k, v in arguments.items() if k != "new_action_reason"}
    return json.dumps([name, kept], sort_keys=True, separators=(",", ":"))


def identical_earlier_step(
    name: str, arguments: dict[str, Any], earlier: list[StepRecord]
) -> StepRecord | None:
    """The earlier step this call repeats, unless the model said why it is a
    new action (or it only reads the page): then it may run."""
    if name in ALWAYS_ALLOWED or str(arguments.get("new_action_reason", "")).strip():
        return None
    wanted = canonical(name, arguments)
    return next((s for s in earlier if canonical(s.tool, s.arguments) == wanted), None)
