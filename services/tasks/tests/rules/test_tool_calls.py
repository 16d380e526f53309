"""A model's tool call before anything runs: its arguments checked against
the tool's schema, an identical earlier call refused, what it acts on
named, and what a cut-off call means."""

from datetime import UTC, datetime

import pytest

from nod_tasks.domain.results import NotRun
from nod_tasks.domain.steps import NO_SUBJECT, StepRecord, StepState, Subject
from nod_tasks.domain.tasks import FilledForm, FormKind
from nod_tasks.domain.tools import (
    BY_NAME,
    MAX_ARGUMENTS,
    TOOLS,
    BadToolCall,
    CutOff,
    check_call,
    cut_off_end,
    plan_call,
)

LOGIN = {"login_id": "L", "fields": {"password": "#pw"}, "submit": "#go"}


def earlier(tool: str, arguments: dict) -> StepRecord:
    return StepRecord(
        task_id="t", number=3, call_id="c", tool=tool, arguments=arguments,
        state=StepState.NOT_RUN, result=NotRun("x"), reason="", subject=NO_SUBJECT,
        runner_instance=None, claim_id=None, approval_id=None, resolution=None,
        started_at=datetime.now(UTC), ended_at=None,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("name", "arguments", "why"),
    [
        ("fly", {}, "there is no tool named 'fly'"),
        ("navigate", [], "arguments must be a JSON object"),
        ("navigate", {}, "missing argument(s): url"),
        ("navigate", {"url": "x", "force": True}, "unknown argument(s): force"),
        ("navigate", {"url": 7}, "url must be a string"),
        ("request_payment", {"merchant_origin": "o", "amount_minor": True, "currency": "EUR",
                             "description": "d", "card_id": "c"},
         "amount_minor must be an integer"),
        ("enter_saved_login", {"login_id": "L", "fields": {"password": 3}},
         "fields must be an object"),
        ("ask_private_form", {"kind": "pin", "reason": "r"}, "kind must be a string"),
    ],
)  # fmt: skip
def test_a_bad_call_is_refused_with_what_to_fix(name, arguments, why):
    with pytest.raises(BadToolCall) as refused:
        check_call(name, arguments)
    assert str(refused.value) == why


def test_an_identical_call_is_refused_unless_the_model_says_why_it_is_new():
    before = [earlier("enter_saved_login", LOGIN)]
    again = plan_call("enter_saved_login", dict(LOGIN), before, {})
    assert again.refused.startswith("identical to step 3")
    reasoned = plan_call("enter_saved_login", {**LOGIN, "new_action_reason": "retyped"}, before, {})
    assert reasoned.refused == "" and reasoned.subject == Subject(login_id="L")


def test_reading_the_page_again_is_always_allowed():
    assert plan_call("read_page", {}, [earlier("read_page", {})], {}).refused == ""


def test_what_a_call_acts_on_is_known_before_it_runs():
    forms = {
        "f1": FilledForm(FormKind.LOGIN, "saved-login-2", picked_login=True),
        "f2": FilledForm(FormKind.ONE_TIME_CODE, "entry-9", picked_login=False),
    }
    password = {"password": "#pw"}
    picked = plan_call("enter_from_private_form", {"form_id": "f1", "fields": password}, [], forms)
    typed = plan_call(
        "enter_from_private_form", {"form_id": "f2", "fields": {"code": "#c"}}, [], forms
    )
    paying = plan_call("pay", {"payment_id": "p", "fields": {}, "submit": "#pay"}, [], forms)
    assert picked.subject == Subject(form_id="f1", login_id="saved-login-2")
    assert typed.subject == Subject(form_id="f2")
    assert paying.subject == Subject(payment_id="p")


@pytest.mark.parametrize(
    "arguments",
    [None, {"url": "http://a\x00b"}, {"url": "x" * (MAX_ARGUMENTS + 1)}],
)
def test_arguments_no_step_can_store_are_refused_and_recorded_empty(arguments):
    planned = plan_call("navigate\x00", arguments, [], {})
    assert planned.refused and planned.arguments == {} and planned.name == "navigate"


def test_a_cut_off_call_is_uncertain_exactly_when_it_may_have_reached_a_site_or_app():
    may = {t.name for t in TOOLS if t.cut_off == CutOff.MAY_HAVE_HAPPENED}
    assert may == {
        "click",
        "press_key",
        "enter_saved_login",
        "enter_from_private_form",
        "propose_app_action",
        "request_payment",
        "pay",
        "confirm_payment",
    }
    assert cut_off_end("pay", "stopped").state == StepState.UNCERTAIN
    assert cut_off_end("read_page", "stopped").state == StepState.FAILED
    assert cut_off_end("no-such-tool", "stopped").state == StepState.FAILED


def test_every_tool_that_enters_a_private_value_names_what_it_enters():
    for tool in TOOLS:
        if tool.enters_private:
            assert tool.cut_off == CutOff.MAY_HAVE_HAPPENED, tool.name
    assert {t.name for t in TOOLS if t.waits} == {
        "ask_private_form",
        "ask_person",
        "propose_app_action",
        "request_payment",
    }
    assert BY_NAME["finish"].schema()["function"]["name"] == "finish"


def test_the_first_page_of_a_two_step_sign_in_signs_in_with_nothing():
    """Only the username goes in: harmless to repeat, and no sign-in for G6;
    the password step that follows is."""
    first = plan_call("enter_saved_login", {"login_id": "L", "fields": {"username": "#u"}}, [], {})
    second = plan_call("enter_saved_login", {"login_id": "L", "fields": {"password": "#p"}}, [], {})
    assert first.subject == NO_SUBJECT
    assert second.subject == Subject(login_id="L")
