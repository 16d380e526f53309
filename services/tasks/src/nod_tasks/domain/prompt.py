"""What the model is told: the rules, the person's things (labels and masked
values only) and the task's transcript, as OpenAI chat messages.

The transcript is kept as the task goes (store/transcript.py): the person's
words, each tool call the model made, and each result it was given. Nothing
in it was ever a private value: pages come masked from the browser service,
private forms are named by id, saved items by label."""

import json
from typing import Any

from nod_tasks.domain.model import TaskContext

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
- Payments: request_payment (the person says yes), then pay.
- App actions: propose_app_action (the person says yes, it runs once).
- When the task is done, or can't be done, call finish with a short message."""


def system_prompt(context: TaskContext) -> str:
    lines = [RULES, "", "The person's saved logins (id, label, site, username):"]
    lines += [f"- {x.id}: {x.label} ({x.origin}, {x.username})" for x in context.logins] or [
        "- none"
    ]
    lines += ["The person's saved cards (id, label, number, expiry):"]
    lines += [f"- {c.id}: {c.label} ({c.number}, {c.expiry})" for c in context.cards] or ["- none"]
    lines += ["The person's connected apps (id, app, label):"]
    lines += [f"- {a.id}: {a.app}, {a.label}" for a in context.accounts] or ["- none"]
    lines += ["The webhook app's action is `post` (parameters: any JSON object)."]
    return "\n".join(lines)


def to_messages(context: TaskContext, transcript: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI chat messages: the system prompt, then the transcript."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": system_prompt(context)}]
    for entry in transcript:
        if entry["role"] == "assistant":
            call = entry["tool_call"]
            messages.append(
                {
                    "role": "assistant",
                    "content": entry.get("content") or None,
                    "tool_calls": [
                        {
                            "id": call["id"],
                            "type": "function",
                            "function": {
                                "name": call["name"],
                                "arguments": json.dumps(call["arguments"], sort_keys=True),
                            },
                        }
                    ],
                }
            )
        elif entry["role"] == "tool":
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": entry["tool_call_id"],
                    "content": json.dumps(entry["result"], sort_keys=True),
                }
            )
        else:
            messages.append({"role": "user", "content": entry["content"]})
    return messages


def assistant_call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "tool_call": {"id": call_id, "name": name, "arguments": arguments}}


def tool_result(call_id: str, step: int, result: dict[str, Any]) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "result": {"step": step, **result}}


def person_said(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}
