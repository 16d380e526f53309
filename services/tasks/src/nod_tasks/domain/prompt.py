"""What the model is told: the rules, the person's things (labels and masked
values only) and the task's transcript, as OpenAI chat messages.

The transcript is kept as the task goes (store/transcript.py): the person's
words, each tool call the model made, and each result's model view. Nothing
in it was ever a private value: pages come masked from the browser service,
private forms are named by id, saved items by label."""

import json
from dataclasses import dataclass
from typing import Any

from nod_tasks.domain.model import Message, TaskContext

RULES = """You are nod, an assistant that does tasks for a person on websites and in their
connected apps, one tool call at a time.
Rules you must keep:
- You never see passwords, one-time codes or card numbers. To enter one, use
  enter_saved_login (a saved login by id), ask_private_form then
  enter_from_private_form (the person types it), or pay (a saved card).
- Every tool call runs once. An identical call is refused unless you give
  new_action_reason (reading the page again is always allowed).
- If a result is "uncertain", it may have happened: do not try it again; the
  person will check and tell you.
- A saved login that did not get through is not entered again in this task:
  use the private form instead.
- A private value goes only where the person chose it: a private form is for
  the page you read last (name the field it goes into when that is in a
  frame); a card goes only to the shop the person said yes to (name hosted
  payment pages elsewhere in request_payment). A value refused for where it
  would go was not entered: do not try it on that page again.
- Payments: request_payment (the person says yes), then pay. If pay's result
  says paid: not_yet, the shop shows a review page and nothing is charged
  yet: place the order with confirm_payment, once (never click it yourself).
- App actions: propose_app_action (the person says yes, it runs once).
- When the task is done, or can't be done, call finish with a short message."""


@dataclass(frozen=True)
class Said:
    """The person's words (the task, a Continue, an answer, a check's finding)."""

    text: str

    def to_json(self) -> dict[str, Any]:
        return {"role": "user", "content": self.text}

    def message(self) -> Message:
        return Message.of({"role": "user", "content": self.text})


@dataclass(frozen=True)
class Called:
    """A tool call the model made."""

    call_id: str
    name: str
    arguments: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        call = {"id": self.call_id, "name": self.name, "arguments": self.arguments}
        return {"role": "assistant", "tool_call": call}

    def message(self) -> Message:
        function = {"name": self.name, "arguments": json.dumps(self.arguments, sort_keys=True)}
        call = {"id": self.call_id, "type": "function", "function": function}
        return Message.of({"role": "assistant", "content": None, "tool_calls": [call]})


@dataclass(frozen=True)
class Answered:
    """What the model is told of a call's result (a result's model view)."""

    call_id: str
    step: int
    view: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"role": "tool", "tool_call_id": self.call_id, "result": self.content()}

    def content(self) -> dict[str, Any]:
        return {"step": self.step, **self.view}

    def message(self) -> Message:
        content = json.dumps(self.content(), sort_keys=True)
        return Message.of({"role": "tool", "tool_call_id": self.call_id, "content": content})


Entry = Said | Called | Answered


def from_json(data: dict[str, Any]) -> Entry:
    if data["role"] == "assistant":
        call = data["tool_call"]
        return Called(call["id"], call["name"], call["arguments"])
    if data["role"] == "tool":
        result = dict(data["result"])
        step = int(result.pop("step", 0))
        return Answered(data["tool_call_id"], step, result)
    return Said(data["content"])


def system_prompt(context: TaskContext) -> Message:
    lines = [RULES, "", "The person's saved logins (id, label, site, username):"]
    lines += [
        f"- {x.id}: {x.label} ({x.origin}, {x.username})"
        + ("; makes one-time codes (place totp_code)" if x.makes_codes else "")
        for x in context.logins
    ] or ["- none"]
    lines += ["The person's saved cards (id, label, number, expiry):"]
    lines += [f"- {c.id}: {c.label} ({c.number}, {c.expiry})" for c in context.cards] or ["- none"]
    lines += ["The person's connected apps (id, app, label):"]
    lines += [f"- {a.id}: {a.app}, {a.label}" for a in context.accounts] or ["- none"]
    lines += ["The webhook app's action is `post` (parameters: any JSON object)."]
    return Message.of({"role": "system", "content": "\n".join(lines)})
