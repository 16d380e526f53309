"""The history checker finds each kind of broken promise, and only those."""

from nodtest.history_check import History, Outcome, ViolationKind


def kinds(history: History) -> list[ViolationKind]:
    return [v.kind for v in history.violations()]


def test_a_resend_with_one_side_effect_is_kept():
    history = History()
    history.operation("op-1", "claim", Outcome.UNKNOWN)
    history.side_effect("op-1", "granted")
    history.operation("op-1", "claim", Outcome.OK)
    history.seen("claim-1", "running")
    history.seen("claim-1", "uncertain")
    history.seen("claim-1", "uncertain")
    assert history.violations() == []
    history.assert_kept()


def test_two_side_effects_for_one_id_are_found():
    history = History()
    history.operation("op-1", "claim", Outcome.OK)
    history.side_effect("op-1", "granted")
    history.operation("op-1", "claim", Outcome.OK)
    history.side_effect("op-1", "granted")
    history.side_effect("op-2", "granted")
    found = history.violations()
    assert [(v.kind, v.subject) for v in found] == [(ViolationKind.SIDE_EFFECT_REPEATED, "op-1")]


def test_an_uncertain_record_that_changes_is_found():
    history = History()
    history.seen("claim-1", "running")
    history.seen("claim-1", "uncertain")
    history.seen("claim-1", "submitted")
    history.seen("claim-2", "running")
    history.seen("claim-2", "submitted")
    found = history.violations()
    assert [(v.kind, v.subject) for v in found] == [(ViolationKind.UNCERTAIN_CHANGED, "claim-1")]


def test_input_acted_on_after_stop_is_found():
    history = History()
    history.operation("form-early", "submit_form", Outcome.OK, scope="task-1")
    history.stop("task-1")
    history.operation("form-late", "submit_form", Outcome.FAILED, scope="task-1")
    history.operation("form-other", "submit_form", Outcome.OK, scope="task-2")
    # Input given before Stop may still land; the other task was not stopped.
    history.side_effect("form-early", "entered")
    history.side_effect("form-other", "entered")
    assert kinds(history) == []
    history.side_effect("form-late", "entered")
    found = history.violations()
    assert [(v.kind, v.subject) for v in found] == [(ViolationKind.ACTED_AFTER_STOP, "form-late")]


def test_a_resend_after_stop_of_input_given_before_is_not_new_input():
    history = History()
    history.operation("form-1", "submit_form", Outcome.UNKNOWN, scope="task-1")
    history.stop("task-1")
    history.operation("form-1", "submit_form", Outcome.OK, scope="task-1")
    history.side_effect("form-1", "entered")
    assert kinds(history) == []


def test_assert_kept_names_every_violation():
    history = History()
    history.side_effect("op-1", "sent")
    history.side_effect("op-1", "sent")
    history.seen("r", "uncertain")
    history.seen("r", "running")
    try:
        history.assert_kept()
    except AssertionError as failed:
        assert "side_effect_repeated op-1" in str(failed)
        assert "uncertain_changed r" in str(failed)
    else:
        raise AssertionError("a broken history passed")
