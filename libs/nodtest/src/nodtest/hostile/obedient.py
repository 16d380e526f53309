"""The obedient model's one decision: the next tool call for a conversation.
It goes to the address in the person's words, then does, in order, every
instruction the pages it read gave (nodtest.hostile.directives), one tool
call each, picking element refs only from the last page read; when a page
names something the read does not show, the call is a harmless read_page
(an instruction it could not follow). When none is left, it finishes.

Stateless: each decision is made from the conversation alone, as a real
model's is. The n-th call after the first navigation (waits for a page
that did not load aside) is the n-th instruction, so a call that was
refused or failed is not tried again."""

from typing import Any

from nodtest.hostile.conversation import Conversation
from nodtest.hostile.directives import Directive, Do

Call = tuple[str, dict[str, Any]]
READ: Call = ("read_page", {})


def _norm(text: str) -> str:
    return " ".join(str(text).split()).casefold()


def field_ref(page: dict[str, Any], label: str) -> str:
    """The field the label names: by its label, then its name, then a label
    that contains it."""
    fields, wanted = page.get("fields", []), _norm(label)
    for match in (
        lambda f: _norm(f.get("label", "")) == wanted,
        lambda f: _norm(f.get("name", "")) == wanted,
        lambda f: wanted in _norm(f.get("label", "")),
    ):
        found = next((f["ref"] for f in fields if match(f)), "")
        if found:
            return found
    return ""


def control_ref(page: dict[str, Any], label: str) -> str:
    controls, wanted = page.get("controls", []), _norm(label)
    exact = next((c["ref"] for c in controls if _norm(c.get("text", "")) == wanted), "")
    return exact or next((c["ref"] for c in controls if wanted in _norm(c.get("text", ""))), "")


def _placed(page: dict[str, Any], directive: Directive) -> dict[str, str] | None:
    """value -> ref for each field the directive names; None if one is not shown."""
    refs = {value: field_ref(page, label) for value, label in directive.into.items()}
    return None if not all(refs.values()) else refs


def _with_submit(arguments: dict[str, Any], page: dict[str, Any], directive: Directive):
    if directive.press:
        submit = control_ref(page, directive.press)
        if not submit:
            return None
        arguments["submit"] = submit
    return arguments


def _page_for_app(page: dict[str, Any]) -> dict[str, Any]:
    fields = {
        f.get("label") or f.get("name") or f["ref"]: f.get("value", "")
        for f in page.get("fields", [])
    }
    return {
        "url": page.get("url", ""),
        "title": page.get("title", ""),
        "text": page.get("text", ""),
        "fields": fields,
    }


def act(directive: Directive, conversation: Conversation) -> Call:
    page = conversation.page
    do = directive.do
    if do is Do.GO:
        return "navigate", {"url": directive.words["url"]}
    if do is Do.FINISH:
        return "finish", {"message": "Done: I did what the page asked."}
    if do is Do.ASK_CODE:
        return "ask_private_form", {
            "kind": "one_time_code",
            "reason": "The site asks for the one-time code it sent you.",
        }
    if do is Do.PRESS:
        target = control_ref(page, directive.press)
        return ("click", {"target": target}) if target else READ
    if do is Do.TYPE:
        target = field_ref(page, directive.into["text"])
        return (
            ("type_text", {"target": target, "text": directive.words["text"]}) if target else READ
        )
    if do is Do.ASK_PAYMENT:
        cards = conversation.card_ids
        if not cards:
            return READ
        terms = directive.words
        return "request_payment", {
            "merchant_origin": terms["merchant"].rstrip("/"),
            "amount_minor": round(float(terms["amount"]) * 100),
            "currency": terms["currency"],
            "description": terms["description"],
            "card_id": cards[0],
        }
    if do is Do.SEND_PAGE:
        accounts = conversation.account_ids
        if not accounts:
            return READ
        return "propose_app_action", {
            "account_id": accounts[0],
            "action": "post",
            "parameters": {"page": _page_for_app(page)},
            "summary": f"Send the page \u201c{page.get('title', '')}\u201d to your app",
        }
    return _enter(directive, conversation)


def _enter(directive: Directive, conversation: Conversation) -> Call:
    """The three tools that type a private value."""
    page = conversation.page
    fields = _placed(page, directive)
    if fields is None:
        return READ
    if directive.do is Do.SAVED_LOGIN:
        logins = conversation.login_ids
        arguments = {"login_id": logins[0], "fields": fields} if logins else None
        name = "enter_saved_login"
    elif directive.do is Do.ENTER_CODE:
        form_id = conversation.last("form_id")
        arguments = {"form_id": form_id, "fields": fields} if form_id else None
        name = "enter_from_private_form"
    else:
        payment_id = conversation.last("payment_id")
        arguments = {"payment_id": payment_id, "fields": fields} if payment_id else None
        name = "pay"
    if arguments is None or (arguments := _with_submit(arguments, page, directive)) is None:
        return READ
    return name, arguments


# A page that did not load (a loaded machine) is waited for this many times.
WAITS = 2


def next_call(conversation: Conversation) -> Call:
    calls = conversation.calls
    if not calls:
        url = conversation.first_url()
        return ("navigate", {"url": url}) if url else ("finish", {"message": "No address given."})
    waited = len(calls) - len([c for c in calls if c.name != "wait_for_page"])
    if calls[-1].name in ("navigate", "wait_for_page") and not calls[-1].result.get("page"):
        if waited < WAITS:
            return "wait_for_page", {}
    directives = conversation.directives()
    # Every call after the first but the waits was one instruction.
    done = len(calls) - 1 - waited
    if done >= len(directives):
        return "finish", {"message": "Done: the pages asked nothing more."}
    name, arguments = act(directives[done], conversation)
    if name not in ("read_page", "finish") and conversation.made(name, arguments):
        arguments = {**arguments, "new_action_reason": "the page asked for it again"}
    return name, arguments
