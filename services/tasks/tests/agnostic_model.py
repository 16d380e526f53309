"""A model stand-in that knows no site: like a real model, it sees only what
the tasks service sends (the system prompt with the person's saved logins
by id and label, and each tool result with the page as ReadPage gave it),
and picks fields and buttons by their types, labels, names, autocomplete
hints and roles. It drives sign-ins (one page or two, with a code from a
saved seed or from the person) on sites nobody here wrote.

`insist=True` makes it the model the promise must survive: after a sign-in
that didn't get through, it asks for the same saved login again, with a
reason, instead of using the private form it was offered (and, shopping,
asks to place a declined order again).

A task that begins with "Buy" is shopping (shopping_model.py)."""

import json
import re
from dataclasses import dataclass, field
from typing import Any

from .model_server import Answer, text, tool_call
from .shopping_model import Shopper

SUBMIT_WORDS = re.compile(r"^\s*(log ?in|sign ?in|next|continue|submit|verify|confirm)", re.I)
NOT_SUBMIT = re.compile(r"back|cancel|forgot|register|sign ?up|search|go\b", re.I)
DISMISS = re.compile(r"accept|agree|allow|got it|^ok\b|close", re.I)
USERNAME_HINT = re.compile(r"user|e-?mail|login|account", re.I)
CODE_HINT = re.compile(r"otp|one.?time|token|code", re.I)
LOGIN_LINE = re.compile(r"^- (\S+): .*?\((\S+), [^)]*\)(; makes one-time codes)?", re.M)


@dataclass(frozen=True)
class Login:
    id: str
    origin: str
    makes_codes: bool


@dataclass
class Seen:
    """What the conversation so far says, read as a model reads it."""

    task: str
    logins: list[Login]
    system: str = ""
    calls: list[tuple[str, dict[str, Any], dict[str, Any]]] = field(default_factory=list)
    person: list[str] = field(default_factory=list)

    @property
    def page(self) -> dict[str, Any]:
        for _, _, result in reversed(self.calls):
            if result.get("page"):
                return result["page"]
        return {}

    def entered(self, tool: str) -> list[dict[str, Any]]:
        return [result for name, _, result in self.calls if name == tool]


def read(body: dict[str, Any]) -> Seen:
    messages = body["messages"]
    logins = [
        Login(m.group(1), m.group(2), bool(m.group(3)))
        for m in LOGIN_LINE.finditer(messages[0]["content"])
    ]
    seen = Seen(task=messages[1]["content"], logins=logins, system=messages[0]["content"])
    pending: dict[str, tuple[str, dict[str, Any]]] = {}
    for message in messages[2:]:
        if message["role"] == "assistant":
            for call in message.get("tool_calls") or []:
                function = call["function"]
                pending[call["id"]] = (function["name"], json.loads(function["arguments"]))
        elif message["role"] == "tool":
            name, arguments = pending.pop(message["tool_call_id"])
            seen.calls.append((name, arguments, json.loads(message["content"])))
        else:
            seen.person.append(message["content"])
    return seen


def fields_of(page: dict[str, Any]) -> list[dict[str, Any]]:
    return page.get("fields", [])


def password_field(page: dict[str, Any]) -> dict[str, Any] | None:
    return next(
        (
            f
            for f in fields_of(page)
            if f.get("private_kind") == "password" or f.get("type") == "password"
        ),
        None,
    )


def code_field(page: dict[str, Any]) -> dict[str, Any] | None:
    for f in fields_of(page):
        hint = " ".join(str(f.get(k, "")) for k in ("name", "label", "type"))
        if f.get("private_kind") == "one_time_code" or f.get("boxes") or CODE_HINT.search(hint):
            if f.get("type") != "hidden":
                return f
    return None


def username_field(page: dict[str, Any]) -> dict[str, Any] | None:
    for f in fields_of(page):
        if f.get("masked") or f.get("type") in ("hidden", "password", "checkbox", "radio"):
            continue
        hint = " ".join(str(f.get(k, "")) for k in ("name", "label", "type"))
        if USERNAME_HINT.search(hint):
            return f
    return None


def submit_button(page: dict[str, Any]) -> str:
    controls = [c for c in page.get("controls", []) if c.get("kind") in ("submit", "button")]
    ranked = sorted(
        (c for c in controls if c.get("text") and not NOT_SUBMIT.search(c["text"])),
        key=lambda c: (not SUBMIT_WORDS.search(c["text"]), c.get("kind") != "submit"),
    )
    return ranked[0]["ref"] if ranked else ""


def origin_of(url: str) -> str:
    match = re.match(r"^(https?://[^/]+)", url)
    return match.group(1) if match else ""


class AgnosticModel:
    def __init__(self, *, insist: bool = False, place_order: bool = True) -> None:
        self.insist = insist
        self.place_order = place_order

    async def answer(self, body: dict[str, Any]) -> Answer:
        seen = read(body)
        step = self.next_step(seen)
        if step is None:
            return text("Done.")
        return tool_call(*step)

    def next_step(self, seen: Seen) -> tuple[str, dict[str, Any]] | None:
        if not seen.calls:
            url = re.search(r"https?://\S+", seen.task)
            return ("navigate", {"url": url.group(0).rstrip(".")}) if url else None
        if seen.task.lower().startswith("buy"):
            shopper = Shopper(insist=self.insist, place_order=self.place_order)
            return shopper.next_step(seen, lambda page: self._enter(seen, page))
        last_name, last_args, last = seen.calls[-1]
        if last.get("outcome") in ("not_run", "failed", "uncertain"):
            return "finish", {"message": f"I stopped: {last.get('why', last['outcome'])}"}
        page = seen.page
        login = next((x for x in seen.logins if x.origin == origin_of(page.get("url", ""))), None)
        if page.get("overlay_covers_page") and last_name != "click":
            dismiss = next(
                (c for c in page.get("controls", []) if DISMISS.search(c.get("text", ""))), None
            )
            if dismiss:
                return "click", {"target": dismiss["ref"]}
        form = last.get("private_form")
        if form and login is not None:
            # The service opened its private form; the run went on once the
            # person filled it.
            if self.insist:
                again = "the person asked to try the saved login once more"
                return "enter_saved_login", {**last_args, "new_action_reason": again}
            fields = {"password": (password_field(page) or {}).get("ref", "")}
            if (user := username_field(page)) is not None and not user.get("value"):
                fields["username"] = user["ref"]
            return "enter_from_private_form", {
                "form_id": form["form_id"],
                "fields": fields,
                "submit": submit_button(page),
            }
        return self._sign_in(seen, page, login, last_name, last)

    def _sign_in(self, seen, page, login, last_name, last) -> tuple[str, dict[str, Any]] | None:
        if last.get("check") == "worked" and not (password_field(page) or code_field(page)):
            return "finish", {"message": "Signed in."}
        if page.get("sign_out_shown"):
            return "finish", {"message": "Signed in."}
        submit = submit_button(page)
        code = code_field(page)
        if code is not None and password_field(page) is None:
            if login is not None and login.makes_codes:
                args = {"login_id": login.id, "fields": {"totp_code": code["ref"]}}
                return "enter_saved_login", {**args, "submit": submit}
            if last_name == "ask_private_form":
                form_id = last["form_id"]
                return "enter_from_private_form", {
                    "form_id": form_id,
                    "fields": {"code": code["ref"]},
                    "submit": submit,
                }
            return "ask_private_form", {
                "kind": "one_time_code",
                "reason": "The site asks for the one-time code it sent you.",
            }
        if login is None:
            return "finish", {"message": "There is no saved login for this site."}
        password, user = password_field(page), username_field(page)
        if password is not None:
            fields = {"password": password["ref"]}
            if user is not None and not user.get("value"):
                fields["username"] = user["ref"]
            return "enter_saved_login", {"login_id": login.id, "fields": fields, "submit": submit}
        if user is not None:
            fields = {"username": user["ref"]}
            return "enter_saved_login", {"login_id": login.id, "fields": fields, "submit": submit}
        return "finish", {"message": "I found no way to sign in on this page."}

    def _enter(self, seen: Seen, page: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        """A sign-in page met on the way (shopping): the saved login for its site."""
        login = next((x for x in seen.logins if x.origin == origin_of(page.get("url", ""))), None)
        if login is None:
            return "finish", {"message": "There is no saved login for this site."}
        fields = {"password": (password_field(page) or {}).get("ref", "")}
        if (user := username_field(page)) is not None and not user.get("value"):
            fields["username"] = user["ref"]
        return "enter_saved_login", {
            "login_id": login.id,
            "fields": fields,
            "submit": submit_button(page),
        }
