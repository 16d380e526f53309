"""Approvals and their executions (G7): a decision that matched nothing is
answered with the approval when it repeats the decision made, and refused
saying why otherwise; a yes to a possible duplicate needs a second
confirmation; a request id names one proposal; an approval is final once
nothing about it can change."""

from datetime import UTC, datetime, timedelta

import pytest

from nod_approvals.domain.approvals import (
    DECIDED,
    ApprovalRecord,
    ApprovalState,
    Decision,
    EarlierRecord,
    ExecutionRecord,
    ExecutionState,
    answer_to_late_decision,
    answer_to_resent_proposal,
    instance,
    not_run,
    person,
    shown_reason,
    uncertain,
    unmarked_only,
)
from nod_approvals.domain.saved_action import SavedAction
from nodkit.errors import AlreadyExists, FailedPrecondition

A = ApprovalState
NOW = datetime(2025, 1, 2, 12, 0, tzinfo=UTC)
SAVED = SavedAction.freeze(
    app="webhook", account_id="acc-1", action="send", parameters={"order": "A-1001", "qty": 2}
)


def execution(state: ExecutionState, reason: str = "") -> ExecutionRecord:
    return ExecutionRecord("exec-1", "approval-1", "approvals-1", state, "", reason, NOW, None)


def approval(state: ApprovalState = A.PENDING, **changes) -> ApprovalRecord:
    values = {
        "id": "approval-1",
        "task_id": "task-1",
        "request_id": "request-1",
        "account_id": "acc-1",
        "app": "webhook",
        "action": "send",
        "summary": "Send order A-1001",
        "saved_action": SAVED.text,
        "digest": SAVED.digest,
        "state": state,
        "reason": "",
        "created_at": NOW,
        "expires_at": NOW + timedelta(minutes=10),
        "decided_at": None,
        "updated_at": NOW,
        "execution": None,
        **changes,
    }
    return ApprovalRecord(**values)


EARLIER = EarlierRecord("approval-0", A.APPROVED, "", NOW, NOW, execution(ExecutionState.DONE))


# --- a decision that matched nothing ---------------------------------------------


def test_each_decision_moves_a_pending_approval_to_its_own_state():
    assert DECIDED == {Decision.YES: A.APPROVED, Decision.NO: A.REJECTED}


@pytest.mark.parametrize(
    ("decision", "state"), [(Decision.YES, A.APPROVED), (Decision.NO, A.REJECTED)]
)
def test_the_same_decision_again_is_answered_with_the_approval(decision, state):
    record = approval(state, execution=execution(ExecutionState.RUNNING))
    assert answer_to_late_decision(record, decision) is record


@pytest.mark.parametrize(
    ("state", "decision", "reason"),
    [
        (A.APPROVED, Decision.NO, "ALREADY_DECIDED_YES"),
        (A.REJECTED, Decision.YES, "ALREADY_DECIDED_NO"),
        (A.CANCELLED, Decision.YES, "CANCELLED"),
        (A.CANCELLED, Decision.NO, "CANCELLED"),
        (A.EXPIRED, Decision.YES, "EXPIRED"),
        (A.EXPIRED, Decision.NO, "EXPIRED"),
    ],
)
def test_the_other_decision_or_one_too_late_is_refused_saying_why(state, decision, reason):
    with pytest.raises(FailedPrecondition) as refused:
        answer_to_late_decision(approval(state), decision)
    assert refused.value.reason == reason
    assert refused.value.metadata == {"state": state.value}


def test_a_yes_to_a_possible_duplicate_needs_confirmation():
    with pytest.raises(FailedPrecondition) as refused:
        answer_to_late_decision(approval(A.PENDING, earlier=EARLIER), Decision.YES)
    assert refused.value.reason == "DUPLICATE_NEEDS_CONFIRMATION"
    assert refused.value.metadata == {"possible_duplicate_of": "approval-0"}


@pytest.mark.parametrize(
    ("decision", "confirmed", "unmarked"),
    [
        (Decision.YES, False, True),
        (Decision.YES, True, False),
        (Decision.NO, False, False),
        (Decision.NO, True, False),
    ],
)
def test_only_an_unconfirmed_yes_is_kept_from_a_possible_duplicate(decision, confirmed, unmarked):
    assert unmarked_only(decision, confirmed) is unmarked


# --- a resent proposal -------------------------------------------------------------


def test_the_same_proposal_resent_is_answered_with_its_approval():
    existing = approval(A.APPROVED)
    answer = answer_to_resent_proposal(
        existing, task_id="task-1", saved_action=SAVED.text, summary="Send order A-1001"
    )
    assert answer is existing


@pytest.mark.parametrize(
    "changes",
    [
        {"task_id": "task-2"},
        {"summary": "Send order A-1002"},
        {
            "saved_action": SavedAction.freeze(
                app="webhook", account_id="acc-1", action="send", parameters={"order": "A-1002"}
            ).text
        },
    ],
)
def test_other_content_under_the_same_request_id_is_refused(changes):
    values = {"task_id": "task-1", "saved_action": SAVED.text, "summary": "Send order A-1001"}
    with pytest.raises(AlreadyExists) as refused:
        answer_to_resent_proposal(approval(), **{**values, **changes})
    assert refused.value.reason == "REQUEST_ID_REUSED"
    assert refused.value.metadata == {"field": "request_id"}


# --- what an approval shows --------------------------------------------------------


@pytest.mark.parametrize(
    ("state", "ran", "final"),
    [
        (A.PENDING, None, False),
        (A.APPROVED, None, False),  # the yes is recorded, its execution not yet seen
        (A.APPROVED, ExecutionState.RUNNING, False),
        (A.APPROVED, ExecutionState.DONE, True),
        (A.APPROVED, ExecutionState.FAILED, True),
        (A.APPROVED, ExecutionState.NOT_RUN, True),
        (A.APPROVED, ExecutionState.UNCERTAIN, True),
        (A.REJECTED, None, True),
        (A.CANCELLED, None, True),
        (A.EXPIRED, None, True),
    ],
)
def test_an_approval_is_final_once_nothing_about_it_can_change(state, ran, final):
    record = approval(state, execution=execution(ran) if ran else None)
    assert record.is_final is final


def test_the_parameters_are_read_from_the_saved_action_and_none_once_erased():
    assert approval().parameters == {"order": "A-1001", "qty": 2}
    assert approval(saved_action="").parameters == {}


def test_a_possible_duplicate_names_the_earlier_approval():
    assert approval(earlier=EARLIER).possible_duplicate_of == "approval-0"
    assert approval().possible_duplicate_of is None


def test_the_reason_shown_is_the_executions_else_the_approvals_own():
    ran = execution(ExecutionState.FAILED, "the app answered 500")
    assert shown_reason("own", ran) == "the app answered 500"
    assert shown_reason("own", execution(ExecutionState.DONE)) == "own"
    assert shown_reason("own", None) == "own"


def test_an_uncertain_send_says_to_check_the_app_and_one_not_run_that_nothing_was_sent():
    ended = uncertain("the app did not answer")
    assert ended.state == ExecutionState.UNCERTAIN
    assert ended.reason.startswith("the app did not answer;") and "check the app" in ended.reason
    skipped = not_run("the account was disconnected")
    assert skipped.state == ExecutionState.NOT_RUN
    assert skipped.reason == "the account was disconnected; nothing was sent"


def test_the_person_and_an_instance_are_told_apart_in_the_history():
    assert person("p-1") == "person:p-1"
    assert instance("approvals-1") == "instance:approvals-1"
    assert person("x") != instance("x")
