"""The scripted planner: a model provider that needs no network and drives
the three demo tasks against the demo shop and the demo app, the way a model
would — one tool call per request, reading the results it was given. It is
the default when no model is configured, so `make run` works on a fresh
machine.

    sign in:  navigate -> enter_saved_login -> ask_private_form (code)
              -> enter_from_private_form -> finish
    buy:      sign in, then navigate (product) -> click (buy) ->
              request_payment -> ask_private_form (security code) -> pay -> finish
    note:     propose_app_action -> finish
"""

import json
import re
from dataclasses import dataclass, field
from typing import Any

from nod_tasks.domain.codes import MAX_CODE_TRIES
from nod_tasks.domain.model import ModelReply, ModelRequest, TaskContext, ToolCall

DEMO_TASKS = {
    "sign_in": "Sign in to the demo shop",
    "buy": "Buy the desk lamp at the demo shop",
    "note": "Send a note to the demo app: hello from nod",
}
Next = tuple[str, dict[str, Any]]


@dataclass
class Call:
    name: str
    arguments: dict[str, Any]
    result: dict[str, Any] | None = None
    notes_after: list[str] = field(default_factory=list)

    @property
    def outcome(self) -> str:
        return (self.result or {}).get("outcome", "")


def history_of(messages: list[dict[str, Any]]) -> list[Call]:
    """The tool calls made so far, each with its result and what the person
    said after it."""
    calls: list[Call] = []
    by_id: dict[str, Call] = {}
    for message in messages[2:]:  # after the system prompt and the task itself
        if message["role"] == "assistant":
            for tool_call in message.get("tool_calls") or []:
                function = tool_call["function"]
                call = Call(function["name"], json.loads(function["arguments"]))
                by_id[tool_call["id"]] = call
                calls.append(call)
        elif message["role"] == "tool" and message["tool_call_id"] in by_id:
            by_id[message["tool_call_id"]].result = json.loads(message["content"])
        elif message["role"] == "user" and calls:
            calls[-1].notes_after.append(message["content"])
    return calls


def last_page(calls: list[Call]) -> dict[str, Any]:
    for call in reversed(calls):
        if (call.result or {}).get("page"):
            return call.result["page"]  # type: ignore[index]
    return {}


def field_ref(page: dict[str, Any], name: str) -> str:
    return next((f["ref"] for f in page.get("fields", []) if f.get("name") == name), name)


def control_ref(page: dict[str, Any], text: str, kind: str = "submit") -> str:
    return next(
        (
            c["ref"]
            for c in page.get("controls", [])
            if c.get("kind") == kind and c.get("text", "").startswith(text)
        ),
        text,
    )


def finish(message: str, outcome: str = "done") -> Next:
    """The end, in words for the person; the outcome is what the script
    believes (the tasks service overrules it from the steps' results)."""
    return "finish", {"message": message, "outcome": outcome}


def _went_wrong(call: Call) -> Next | None:
    if call.outcome in ("failed", "not_run", "uncertain", "refused"):
        return finish("I couldn't go on: the last step didn't work.", "not_done")
    return None


TRY_AGAIN_REASON = "the person continued after a step that did nothing; trying it again"


def _try_again(calls: list[Call]) -> list[Call] | None:
    """Continued after the script gave up on a step that touched nothing (a
    page that couldn't be opened, a call refused before it ran, such as
    nod's browser being full): the history up to that step, so the script
    makes it again. None when anything may have happened, or nothing went
    wrong: a continue then does nothing again (one use, one result)."""
    ended, gave_up_at = calls[-1], calls[-2] if len(calls) > 1 else None
    if gave_up_at is None or ended.arguments.get("outcome") != "not_done":
        return None
    touched_nothing = gave_up_at.outcome == "not_run" or (
        gave_up_at.name == "navigate" and gave_up_at.outcome == "failed"
    )
    return calls[:-2] if touched_nothing else None


def _refused_code(call: Call) -> bool:
    return (call.result or {}).get("check") == "did_not_work"


def _answered_form(call: Call) -> str:
    """The form an ask_private_form call opened, "" when it has no result
    (the task was stopped or cut off while the form was open)."""
    return str((call.result or {}).get("form_id") or "")


def _cut_off(call: Call) -> Next:
    """A form closed before its answer came (the task was stopped while it
    was open): its page went with the run's browser session, so there is
    nothing to type the answer into; saying so beats guessing."""
    return finish(
        "The form was closed before it was answered, and the page it was for is gone."
        " Start the task again to go on.",
        "not_done",
    )


def _login_form_answered(calls: list[Call]) -> dict[str, Any] | None:
    """The private form a refused saved login opened, once the person has
    answered it and until what they gave has been entered."""
    for index, call in enumerate(calls):
        form = (call.result or {}).get("private_form")
        if call.name == "enter_saved_login" and form and call.notes_after:
            later = calls[index + 1 :]
            if not any(c.name == "enter_from_private_form" for c in later):
                return form
    return None


def sign_in(context: TaskContext, calls: list[Call]) -> Next | None:
    """The next call of the sign-in, or None once signed in."""
    if not context.logins:
        return finish("There is no saved login for the demo shop.", "not_done")
    login = next((x for x in context.logins if "shop" in x.label.lower()), context.logins[0])
    if not calls:
        return "navigate", {"url": f"{login.origin}/login"}
    last = calls[-1]
    page = last_page(calls)
    if wrong := _went_wrong(last):
        return wrong
    login_fields = {
        "username": field_ref(page, "username"),
        "password": field_ref(page, "password"),
    }
    form = _login_form_answered(calls)
    if last.name == "navigate" and page.get("login_form"):
        submit = control_ref(page, "Sign in")
        if form:
            return "enter_from_private_form", {
                "form_id": form["form_id"],
                "fields": login_fields,
                "submit": submit,
            }
        return "enter_saved_login", {"login_id": login.id, "fields": login_fields, "submit": submit}
    if last.name == "enter_saved_login" and form:
        # The saved login didn't get through; the person gave a password
        # instead. Typed on the sign-in form, whatever the unanswered submit
        # left on screen (the site's answer, or no page at all).
        if page.get("login_form"):
            submit = control_ref(page, "Sign in")
            return "enter_from_private_form", {
                "form_id": form["form_id"],
                "fields": login_fields,
                "submit": submit,
            }
        return "navigate", {
            "url": f"{login.origin}/login",
            "new_action_reason": "back to the sign-in form for the password the person typed",
        }
    if last.name in ("enter_saved_login", "enter_from_private_form") and page.get("code_form"):
        refused = [c for c in calls if c.name == "enter_from_private_form" and _refused_code(c)]
        if not refused:
            return "ask_private_form", {
                "kind": "one_time_code",
                "reason": "The shop asks for the one-time code from your authenticator app.",
            }
        if len(refused) >= MAX_CODE_TRIES:
            return finish(
                f"The shop didn't accept {len(refused)} codes; nod stopped asking so that"
                " the account isn't locked.",
                "not_done",
            )
        # A new request: the person types a new code into a new form.
        return "ask_private_form", {
            "kind": "one_time_code",
            "reason": "The shop didn't accept that code. Type the newest one from your app.",
            "new_action_reason": "the shop refused the code; the person types a new one",
        }
    if last.name == "ask_private_form":
        if not (form_id := _answered_form(last)):
            return _cut_off(last)
        return "enter_from_private_form", {
            "form_id": form_id,
            "fields": {"code": field_ref(page, "code")},
            "submit": control_ref(page, "Verify"),
        }
    if (last.result or {}).get("check") == "worked" or page.get("url", "").endswith("/account"):
        return None
    return finish("The sign-in did not go through.", "not_done")


def buy(context: TaskContext, calls: list[Call]) -> Next | None:
    signing_in = [c for c in calls if c.name != "navigate" or "/login" in c.arguments["url"]]
    product_calls = calls[len(signing_in) :] if len(signing_in) < len(calls) else []
    if not product_calls and (step := sign_in(context, calls)) is not None:
        return step
    origin = next((x.origin for x in context.logins if "shop" in x.label.lower()), "")
    if not product_calls:
        return "navigate", {"url": f"{origin}/product"}
    last, page = calls[-1], last_page(calls)
    if wrong := _went_wrong(last):
        return wrong
    if last.name == "navigate":
        return "click", {"target": control_ref(page, "Buy now", kind="link")}
    if last.name == "click":
        if not context.cards:
            return finish("There is no saved card to pay with.", "not_done")
        return "request_payment", {
            "merchant_origin": origin,
            "amount_minor": price_in_cents(page.get("text", "")),
            "currency": "EUR",
            "description": "Desk lamp",
            "card_id": context.cards[0].id,
        }
    if last.name == "request_payment":
        return "ask_private_form", {
            "kind": "security_code",
            "reason": "The checkout asks for the card's security code.",
        }
    if last.name == "ask_private_form":
        if not (form_id := _answered_form(last)):
            return _cut_off(last)
        payment = next(c for c in reversed(calls) if c.name == "request_payment")
        return "pay", {
            "payment_id": payment.result["payment_id"],  # type: ignore[index]
            "fields": {
                "number": field_ref(page, "card_number"),
                "expiry": field_ref(page, "expiry"),
                "security_code": field_ref(page, "cvc"),
                "holder_name": field_ref(page, "holder"),
            },
            "submit": control_ref(page, "Pay"),
            "security_code_form_id": form_id,
        }
    paid = (last.result or {}).get("paid")
    if paid == "paid":
        return finish("The desk lamp is paid for.")
    return finish("The shop didn't confirm the payment.", "not_done")


def note(context: TaskContext, calls: list[Call]) -> Next | None:
    account = next((a for a in context.accounts if a.app == "webhook"), None)
    if account is None:
        return finish("The demo app is not connected.", "not_done")
    text = context.text.split(":", 1)[1].strip() if ":" in context.text else "Hello from nod"
    if not calls:
        return "propose_app_action", {
            "account_id": account.id,
            "action": "post",
            "parameters": {"text": text},
            "summary": f"Send the note “{text}” to {account.label}",
        }
    proposal = next((c for c in reversed(calls) if c.name == "propose_app_action"), calls[-1])
    result = proposal.result or {}
    if result.get("execution") == "done":
        return finish(f"The note was sent to {account.label}.")
    if any("it happened" in said for said in proposal.notes_after):
        return finish(f"You checked: the note reached {account.label}.")
    return finish("The note was not sent.", "not_done")


def price_in_cents(text: str) -> int:
    found = re.search(r"€\s?(\d+)[.,](\d{2})", text)
    return int(found.group(1)) * 100 + int(found.group(2)) if found else 0


def choose(text: str):
    lowered = text.lower()
    if "buy" in lowered or "pay" in lowered or "order" in lowered:
        return buy
    if "note" in lowered or "message" in lowered:
        return note
    if "sign in" in lowered or "log in" in lowered:
        return sign_in
    return None


class ScriptedPlanner:
    name = "scripted"

    async def complete(self, request: ModelRequest) -> ModelReply:
        script = choose(request.context.text)
        if script is None:
            names = "; ".join(f"“{t}”" for t in DEMO_TASKS.values())
            return ModelReply(
                f"Without a model provider nod can only do the demo tasks: {names}.", []
            )
        calls = history_of([message.body for message in request.messages])
        history, again = calls, False
        if calls and calls[-1].name == "finish":
            if (retried := _try_again(calls)) is None:
                # Continued after it ended: nothing is done again, and an
                # answer in words (no tool call) ends the run; a second
                # identical finish would be refused as a repeated call.
                said = calls[-1].arguments.get("message", "")
                return ModelReply(f"Nothing more to do. {said}".strip(), [])
            history, again = retried, True
        step = script(request.context, history) or finish("Signed in to the demo shop.")
        name, arguments = step
        if again:
            arguments = {**arguments, "new_action_reason": TRY_AGAIN_REASON}
        return ModelReply(
            "", [ToolCall(id=f"call-{len(calls) + 1}", name=name, arguments=arguments)]
        )
