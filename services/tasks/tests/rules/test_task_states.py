"""The task state machine, as a table: every move leaves only the states
it names, and the ones that matter for the promise hold."""

import pytest

from nod_tasks.domain.tasks import (
    ENDED_STATES,
    LIVE_STATES,
    TRANSITIONS,
    Move,
    TaskState,
    may_move,
)

S = TaskState


def test_a_task_runs_only_when_an_instance_takes_it_from_the_queue():
    entering_running = [m for m, t in TRANSITIONS.items() if t.enters == S.RUNNING]
    assert entering_running == [Move.TAKE]
    assert TRANSITIONS[Move.TAKE].leaves == {S.QUEUED}


def test_an_ended_task_goes_anywhere_only_by_the_persons_continue():
    for state in ENDED_STATES:
        moves = [m for m, t in TRANSITIONS.items() if state in t.leaves]
        assert moves == [Move.CONTINUE], state
    assert TRANSITIONS[Move.CONTINUE].enters == S.QUEUED


def test_stop_ends_every_live_state_and_nothing_else():
    assert TRANSITIONS[Move.STOP].leaves == LIVE_STATES
    assert TRANSITIONS[Move.STOP].enters == S.STOPPED


def test_only_a_running_task_finishes_fails_waits_or_is_interrupted():
    for move in (Move.FINISH, Move.FAIL, Move.WAIT, Move.INTERRUPT):
        assert TRANSITIONS[move].leaves == {S.RUNNING}, move


def test_a_waiting_task_is_moved_on_only_by_an_answer_or_stop():
    moves = {m for m, t in TRANSITIONS.items() if S.WAITING in t.leaves}
    assert moves == {Move.ANSWER, Move.ASK_TO_CHECK, Move.STOP}


@pytest.mark.parametrize(
    ("from_state", "to_state", "allowed"),
    [
        (S.QUEUED, S.RUNNING, True),
        (S.QUEUED, S.DONE, False),
        (S.WAITING, S.RUNNING, False),  # an answer queues it; a worker takes it
        (S.DONE, S.RUNNING, False),
        (S.INTERRUPTED, S.QUEUED, True),
        (S.STOPPED, S.WAITING, False),
        (S.RUNNING, S.QUEUED, False),  # nothing in flight is ever run again by itself
    ],
)
def test_which_changes_exist(from_state, to_state, allowed):
    assert may_move(from_state, to_state) is allowed


def test_every_move_writes_an_event_of_a_known_kind():
    kinds = {t.event for t in TRANSITIONS.values()}
    assert kinds == {"task.running", "task.waiting", "task.ended", "task.queued"}
