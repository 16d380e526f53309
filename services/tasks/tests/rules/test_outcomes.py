"""How an ended task came out for the person: the steps' own results
overrule what the model said, the last attempt of each thing decides, and
an uncertain step nobody resolved makes it "may have happened"."""

import pytest

from nod_tasks.domain.outcomes import StepFact, judge
from nod_tasks.domain.reasons import Reason
from nod_tasks.domain.steps import Resolution, StepState
from nod_tasks.domain.tasks import Judged, Outcome, TaskState

DONE, FAILED, NOT_RUN, UNCERTAIN = (
    StepState.DONE,
    StepState.FAILED,
    StepState.NOT_RUN,
    StepState.UNCERTAIN,
)


def steps(*facts: tuple) -> list[StepFact]:
    """(tool, state, extra fields) per step, numbered from 1."""
    return [
        StepFact(number, tool, state, **(extra[0] if extra else {}))
        for number, (tool, state, *extra) in enumerate(facts, start=1)
    ]


def finish(claimed: str = "done") -> tuple:
    return ("finish", DONE, {"result": "finished", "claimed": claimed})


def code(check: str) -> tuple:
    fields = {"result": "submitted", "check": check, "form_kind": "one_time_code"}
    return ("enter_from_private_form", DONE, fields)


def login(check: str) -> tuple:
    return ("enter_saved_login", DONE, {"result": "submitted", "check": check})


def test_a_task_still_going_has_no_outcome():
    for state in (TaskState.QUEUED, TaskState.RUNNING, TaskState.WAITING):
        assert judge(state, steps(finish())) is None


def test_a_sign_in_that_worked_is_done():
    facts = steps(("navigate", DONE), login("worked"), finish())
    assert judge(TaskState.DONE, facts) == Judged(Outcome.DONE)


def test_a_refused_code_cant_end_done_whatever_the_model_says():
    facts = steps(login("worked"), code("did_not_work"), finish("done"))
    assert judge(TaskState.DONE, facts) == Judged(Outcome.NOT_DONE, Reason.CODE_NOT_ACCEPTED, 2)


def test_a_wrong_code_then_a_right_one_is_done():
    facts = steps(login("worked"), code("did_not_work"), code("worked"), finish())
    assert judge(TaskState.DONE, facts).outcome == Outcome.DONE


@pytest.mark.parametrize(
    ("check", "reason"),
    [("did_not_work", Reason.SIGN_IN_REFUSED), ("unclear", Reason.SIGN_IN_UNCLEAR)],
)
def test_a_sign_in_the_site_refused_or_left_unclear_didnt_finish(check, reason):
    assert judge(TaskState.DONE, steps(login(check), finish())) == Judged(
        Outcome.NOT_DONE, reason, 1
    )


def test_an_entry_nod_refused_names_the_refusal():
    refused = ("enter_saved_login", FAILED, {"result": "failed", "code": "PAGE_NOT_BOUND"})
    assert judge(TaskState.DONE, steps(refused, finish())) == Judged(
        Outcome.NOT_DONE, "PAGE_NOT_BOUND", 1
    )


def test_an_uncertain_step_nobody_resolved_may_have_happened():
    facts = steps(("propose_app_action", UNCERTAIN), finish())
    assert judge(TaskState.DONE, facts) == Judged(
        Outcome.MAY_HAVE_HAPPENED, Reason.APP_ACTION_UNCERTAIN, 1
    )
    # However the task ended.
    assert judge(TaskState.STOPPED, facts).outcome == Outcome.MAY_HAVE_HAPPENED


@pytest.mark.parametrize(
    ("resolution", "judged"),
    [
        (Resolution.HAPPENED, Judged(Outcome.DONE)),
        (Resolution.DID_NOT_HAPPEN, Judged(Outcome.NOT_DONE, Reason.APP_ACTION_FAILED, 1)),
    ],
)
def test_what_the_person_found_is_what_the_task_says(resolution, judged):
    facts = steps(("propose_app_action", UNCERTAIN, {"resolution": resolution}), finish())
    assert judge(TaskState.DONE, facts) == judged


def test_a_payment_the_shop_declined_or_left_unknown():
    declined = ("pay", DONE, {"result": "paid", "paid": "declined"})
    unknown = ("pay", DONE, {"result": "paid", "paid": "unknown"})
    paid = ("pay", DONE, {"result": "paid", "paid": "paid"})
    assert judge(TaskState.DONE, steps(declined, finish())).reason == Reason.PAYMENT_DECLINED
    assert judge(TaskState.DONE, steps(unknown, finish())) == Judged(
        Outcome.MAY_HAVE_HAPPENED, Reason.PAYMENT_UNKNOWN, 1
    )
    assert judge(TaskState.DONE, steps(declined, paid, finish())).outcome == Outcome.DONE


def test_a_no_is_a_payment_or_an_action_not_made():
    said_no = {"code": Reason.PERSON_SAID_NO}
    assert judge(TaskState.DONE, steps(("request_payment", NOT_RUN, said_no), finish())) == Judged(
        Outcome.NOT_DONE, Reason.PAYMENT_NOT_APPROVED, 1
    )
    assert judge(
        TaskState.DONE, steps(("propose_app_action", NOT_RUN, said_no), finish())
    ) == Judged(Outcome.NOT_DONE, Reason.APP_ACTION_NOT_RUN, 1)


def test_a_repeat_refused_after_the_thing_worked_is_no_failure_of_the_thing():
    action = ("propose_app_action", DONE)
    repeated = ("propose_app_action", NOT_RUN, {"code": Reason.REPEATS_A_STEP})
    facts = steps(action, repeated, ("read_page", DONE), finish())
    assert judge(TaskState.DONE, facts).outcome == Outcome.DONE


def test_the_model_saying_not_done_or_finishing_right_after_a_refusal():
    assert judge(TaskState.DONE, steps(("navigate", DONE), finish("not_done"))) == Judged(
        Outcome.NOT_DONE, Reason.NOT_FINISHED, 2
    )
    refused = ("navigate", FAILED, {"code": "ADDRESS_NOT_ALLOWED"})
    assert judge(TaskState.DONE, steps(refused, finish())) == Judged(
        Outcome.NOT_DONE, "ADDRESS_NOT_ALLOWED", 1
    )
    assert judge(TaskState.DONE, steps(("click", NOT_RUN), finish())).reason == (
        Reason.STEP_REFUSED
    )


@pytest.mark.parametrize(
    ("state", "reason"),
    [
        (TaskState.FAILED, Reason.RUN_FAILED),
        (TaskState.INTERRUPTED, Reason.INTERRUPTED),
        (TaskState.STOPPED, Reason.STOPPED),
    ],
)
def test_a_task_that_ended_otherwise_didnt_finish(state, reason):
    assert judge(state, steps(("navigate", DONE))) == Judged(Outcome.NOT_DONE, reason)
