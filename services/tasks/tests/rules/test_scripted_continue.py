"""The scripted planner (the demo's model) continued after it gave up: it
makes a step again only when that step touched nothing (a page that
couldn't be opened, a call refused before it ran); after anything that
may have happened, or after a task that went through, a continue does
nothing again."""

import json

from nod_tasks.adapters.models.scripted import TRY_AGAIN_REASON, ScriptedPlanner
from nod_tasks.domain.model import Message, ModelRequest, SavedLogin, TaskContext

LOGIN = SavedLogin(id="login-1", label="Demo shop", origin="https://shop.test", username="a•••")
CONTEXT = TaskContext(task_id="task-1", text="Sign in to the demo shop", logins=[LOGIN])
NAVIGATE = ("navigate", {"url": "https://shop.test/login"})
LOGIN_PAGE = {"url": "https://shop.test/login", "login_form": True, "fields": [], "controls": []}
READ_LOGIN_PAGE = (*NAVIGATE, {"outcome": "done", "page": LOGIN_PAGE})
ENTRY = {"login_id": "login-1", "fields": {}, "submit": "Sign in"}
GAVE_UP = (
    "finish",
    {"message": "I couldn't go on: the last step didn't work.", "outcome": "not_done"},
)


def conversation(*calls: tuple[str, dict, dict | None], then_said: str = "try again"):
    """The system prompt, the task, each call with its result, then what the
    person said when they continued."""
    messages = [{"role": "system", "content": "…"}, {"role": "user", "content": CONTEXT.text}]
    for number, (name, arguments, result) in enumerate(calls, 1):
        call = {
            "id": f"call-{number}",
            "function": {"name": name, "arguments": json.dumps(arguments)},
        }
        messages.append({"role": "assistant", "content": "", "tool_calls": [call]})
        if result is not None:
            content = json.dumps(result)
            messages.append({"role": "tool", "tool_call_id": f"call-{number}", "content": content})
    messages.append({"role": "user", "content": then_said})
    return ModelRequest(tuple(Message.of(m) for m in messages), [], CONTEXT)


async def next_call(*calls):
    return await ScriptedPlanner().complete(conversation(*calls))


async def test_a_page_that_couldnt_be_opened_is_opened_again_as_a_new_action():
    reply = await next_call(
        (*NAVIGATE, {"outcome": "failed", "why": "too many sessions"}),
        (*GAVE_UP, {"outcome": "done"}),
    )
    [call] = reply.tool_calls
    assert (call.name, call.arguments) == (
        "navigate",
        {"url": "https://shop.test/login", "new_action_reason": TRY_AGAIN_REASON},
    )


async def test_a_call_refused_before_it_ran_is_made_again():
    reply = await next_call(
        READ_LOGIN_PAGE,
        ("enter_saved_login", ENTRY, {"outcome": "not_run", "why": "…"}),
        (*GAVE_UP, {"outcome": "done"}),
    )
    [call] = reply.tool_calls
    assert call.name == "enter_saved_login"
    assert call.arguments["new_action_reason"] == TRY_AGAIN_REASON


async def test_after_something_that_may_have_happened_nothing_is_made_again():
    reply = await next_call(
        READ_LOGIN_PAGE,
        ("enter_saved_login", ENTRY, {"outcome": "uncertain", "why": "no answer"}),
        (*GAVE_UP, {"outcome": "done"}),
    )
    assert reply.tool_calls == [] and reply.text.startswith("Nothing more to do.")


async def test_after_a_failed_entry_nothing_is_typed_again():
    reply = await next_call(
        READ_LOGIN_PAGE,
        ("enter_saved_login", ENTRY, {"outcome": "failed", "why": "the page went away"}),
        (*GAVE_UP, {"outcome": "done"}),
    )
    assert reply.tool_calls == []


async def test_after_a_task_that_went_through_nothing_is_done_again():
    reply = await next_call(
        (*NAVIGATE, {"outcome": "done", "page": {"url": "https://shop.test/account"}}),
        (
            "finish",
            {"message": "Signed in to the demo shop.", "outcome": "done"},
            {"outcome": "done"},
        ),
    )
    assert reply.tool_calls == [] and "Signed in" in reply.text
