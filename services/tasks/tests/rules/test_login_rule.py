"""G6 over every way a step that entered a saved login can end: only a
definite "nothing was typed" or a check that said it worked leaves the
login usable; a cut-off entry (RUNNING, UNCERTAIN, whatever its result
says) refuses it, because the login it entered is recorded when it starts."""

from datetime import UTC, datetime

import pytest

from nod_tasks.domain.checks import Check
from nod_tasks.domain.logins import refused_logins
from nod_tasks.domain.pages import Page
from nod_tasks.domain.results import (
    Failed,
    MayHaveHappened,
    NotRun,
    Recorded,
    StepResult,
    Submitted,
)
from nod_tasks.domain.steps import NO_SUBJECT, StepRecord, StepState, Subject

LOGIN = "login-1"
ENTERS_THE_LOGIN = Subject(login_id=LOGIN)
SIGNED_IN = Page(url="https://shop.test/account", text="Hello")


def step(
    state: StepState,
    result: StepResult | None,
    subject: Subject = ENTERS_THE_LOGIN,
    number: int = 1,
) -> StepRecord:
    return StepRecord(
        task_id="t",
        number=number,
        call_id="c",
        tool="enter_saved_login",
        arguments={"login_id": LOGIN},
        state=state,
        result=result,
        reason="",
        subject=subject,
        runner_instance=None,
        claim_id=None,
        approval_id=None,
        resolution=None,
        started_at=datetime.now(UTC),
        ended_at=None,
    )


def submitted(check: Check) -> Submitted:
    return Submitted(check, "claim-1", SIGNED_IN, login_id=LOGIN)


@pytest.mark.parametrize(
    ("state", "result", "refused"),
    [
        # The page check after the submit.
        (StepState.DONE, submitted(Check.WORKED), False),
        (StepState.DONE, submitted(Check.DID_NOT_WORK), True),
        (StepState.DONE, submitted(Check.UNCLEAR), True),
        # Cut off before its check: by Stop, a crash or a restart.
        (StepState.RUNNING, None, True),
        (StepState.UNCERTAIN, MayHaveHappened("it was stopped while it ran"), True),
        (StepState.UNCERTAIN, Recorded({"outcome": "uncertain", "why": "cut off"}), True),
        # Nothing typed: the runner said so, or a rule refused the call.
        (StepState.FAILED, Failed("nothing was typed", nothing_typed=True), False),
        (StepState.NOT_RUN, NotRun("identical to step 1"), False),
        # Written by an earlier version (the model's view only).
        (StepState.DONE, Recorded({"outcome": "submitted", "check": "worked"}), False),
        (StepState.DONE, Recorded({"outcome": "submitted", "check": "unclear"}), True),
    ],
)
def test_a_saved_login_is_refused_unless_it_got_through_or_was_never_typed(state, result, refused):
    assert (LOGIN in refused_logins([step(state, result)])) is refused


def test_one_entry_that_did_not_get_through_refuses_the_login_for_the_whole_task():
    steps = [
        step(StepState.DONE, submitted(Check.DID_NOT_WORK), number=1),
        step(StepState.DONE, submitted(Check.WORKED), number=2),
    ]
    assert refused_logins(steps) == {LOGIN}


def test_a_login_picked_in_a_private_form_counts_like_a_saved_login_entry():
    picked = step(
        StepState.UNCERTAIN, MayHaveHappened("cut off"), Subject(form_id="f", login_id=LOGIN)
    )
    assert refused_logins([picked]) == {LOGIN}


def test_steps_that_entered_no_saved_login_refuse_nothing():
    typed = step(StepState.UNCERTAIN, MayHaveHappened("cut off"), Subject(form_id="f"))
    other = step(StepState.UNCERTAIN, MayHaveHappened("cut off"), NO_SUBJECT)
    assert refused_logins([typed, other]) == set()
