"""The words a person reads for a task's outcome and a step's reason, with no
system running: every reason code the tasks service's contract names has a
sentence, no sentence shows a code, and the badge of an ended task comes
from how it came out (never a green Done for one that didn't finish)."""

import pathlib
import re

import pytest

from nod.tasks.v1 import tasks_pb2 as tasks
from nod_gateway.web import words

PROTO = pathlib.Path(__file__).resolve().parents[2] / "protos/nod/tasks/v1/tasks.proto"
CODE = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*\b")
# Upper-case words of those comments that are no code: the outcome's name.
NOT_CODES = {"DONE"}
BROWSER_REFUSALS = (
    "PAGE_NOT_BOUND",
    "FRAME_NOT_BOUND",
    "SUBMISSION_NOT_BOUND",
    "CARD_NOT_BOUND",
    "ENTRY_NOT_BOUND",
    "WRONG_FIELD_KIND",
    "SUBMITS_ELSEWHERE",
    "VALUES_SENT_ELSEWHERE",
    "ADDRESS_NOT_ALLOWED",
    "TOO_MANY_SESSIONS",
)
UNCERTAIN = ("ENTRY_UNCERTAIN", "PAYMENT_UNCERTAIN", "APP_ACTION_UNCERTAIN", "STEP_UNCERTAIN")
ENDED = (
    tasks.TASK_STATE_DONE,
    tasks.TASK_STATE_FAILED,
    tasks.TASK_STATE_STOPPED,
    tasks.TASK_STATE_INTERRUPTED,
)


def comment_above(field: str) -> str:
    """The comment lines right above a field of tasks.proto, as one text."""
    lines = PROTO.read_text().splitlines()
    at = next(i for i, text in enumerate(lines) if re.match(rf"\s*\S+ {field} = \d+;", text))
    comment: list[str] = []
    for text in reversed(lines[:at]):
        if not text.strip().startswith("//"):
            break
        comment.insert(0, text.strip().removeprefix("//"))
    return " ".join(comment)


def codes_of(field: str) -> set[str]:
    found = set(CODE.findall(comment_above(field))) - NOT_CODES
    assert found, f"no codes read above {field}"
    return found


STEP_CODES = sorted(codes_of("reason_code"))
OUTCOME_CODES = sorted(codes_of("outcome_reason"))


def test_the_contract_lists_the_codes_this_test_expects():
    assert {"REPEATS_A_STEP", "STEP_FAILED", "PAGE_NOT_BOUND"} <= set(STEP_CODES)
    assert {"SIGN_IN_REFUSED", "RUN_FAILED", "STOPPED", *UNCERTAIN} <= set(OUTCOME_CODES)


@pytest.mark.parametrize("code", sorted({*STEP_CODES, *BROWSER_REFUSALS}))
def test_every_step_reason_code_has_its_own_sentence(code):
    assert code in words.REASONS, code
    for state in (tasks.STEP_STATE_FAILED, tasks.STEP_STATE_NOT_RUN):
        said = words.step_reason(code, state)
        assert said not in (words.STEP_FAILED_ANYWAY, words.STEP_NOT_RUN_ANYWAY) or code in (
            "STEP_FAILED",
            "STEP_REFUSED",
        )


@pytest.mark.parametrize("code", OUTCOME_CODES)
def test_every_outcome_reason_has_a_sentence(code):
    assert code in words.OUTCOME_REASONS or code in words.REASONS, code
    for outcome in (tasks.TASK_OUTCOME_NOT_DONE, tasks.TASK_OUTCOME_MAY_HAVE_HAPPENED):
        task = tasks.Task(
            state=tasks.TASK_STATE_DONE, outcome=outcome, outcome_reason=code, outcome_step=3
        )
        said = words.outcome_sentence(task)
        assert said and said not in words.OUTCOME_ANYWAY.values(), code
        assert code not in said


def every_sentence() -> list[str]:
    sentences = [*words.REASONS.values(), *words.OUTCOME_REASONS.values()]
    sentences += [words.STEP_FAILED_ANYWAY, words.STEP_NOT_RUN_ANYWAY]
    sentences += [*words.OUTCOME_ANYWAY.values()]
    for forms in words.STEP_WORDS.values():
        sentences += [forms] if isinstance(forms, str) else list(forms)
    return sentences


TOOLS = sorted({key.split("/")[0] for key in words.STEP_WORDS if key} | set(words.HIDDEN_TOOLS))


@pytest.mark.parametrize("sentence", every_sentence())
def test_no_sentence_shows_a_code_a_tool_or_words_for_the_model(sentence):
    assert not re.search(r"\b[A-Z]{2,}(?:_[A-Z]+)+\b", sentence), sentence
    assert not any(re.search(rf"\b{tool}\b", sentence) for tool in TOOLS if "_" in tool)
    for written_for_the_model in ("new_action_reason", "identical to step", "the model", "{}"):
        assert written_for_the_model not in sentence


@pytest.mark.parametrize("code", UNCERTAIN)
def test_a_step_that_may_have_happened_is_named_by_its_number(code):
    task = tasks.Task(
        state=tasks.TASK_STATE_DONE,
        outcome=tasks.TASK_OUTCOME_MAY_HAVE_HAPPENED,
        outcome_reason=code,
        outcome_step=4,
    )
    said = words.outcome_sentence(task)
    assert said.startswith("Step 4 may have reached the ")
    assert "check" in said and "before anyone tries again" in said
    task.outcome_step = 0
    assert words.outcome_sentence(task).startswith("A step may have reached")


def test_the_sentences_the_brief_promises():
    def said(code: str, **more) -> str:
        task = tasks.Task(
            state=more.pop("state", tasks.TASK_STATE_DONE),
            outcome=more.pop("outcome", tasks.TASK_OUTCOME_NOT_DONE),
            outcome_reason=code,
            **more,
        )
        return words.outcome_sentence(task)

    assert said("CODE_NOT_ACCEPTED") == "The site didn't accept the one-time code."
    assert said("SIGN_IN_REFUSED") == "The site didn't accept the sign-in."
    assert said("PAYMENT_DECLINED") == "The shop declined the payment."
    assert said("STOPPED", state=tasks.TASK_STATE_STOPPED) == "You stopped this task."
    # A failed run: nod's own words for the person, as the task says them.
    failed = "The model provider failed: check what happened, or say continue"
    assert said("RUN_FAILED", state=tasks.TASK_STATE_FAILED, message=failed) == failed
    assert said("RUN_FAILED", state=tasks.TASK_STATE_FAILED) == words.OUTCOME_REASONS["RUN_FAILED"]
    # A code the page doesn't know: a plain sentence, never the code.
    unknown = said("SOMETHING_NEW")
    assert unknown == words.OUTCOME_ANYWAY[tasks.TASK_OUTCOME_NOT_DONE]
    assert "SOMETHING_NEW" not in words.step_reason("SOMETHING_NEW", tasks.STEP_STATE_FAILED)
    # Done, or not ended: nothing to explain.
    assert said("", outcome=tasks.TASK_OUTCOME_DONE) == ""
    assert said("", state=tasks.TASK_STATE_RUNNING, outcome=0) == ""


BADGES = [
    # (state, outcome, words, class)
    (tasks.TASK_STATE_WAITING, 0, "Needs you", "ask"),
    (tasks.TASK_STATE_WAITING, tasks.TASK_OUTCOME_MAY_HAVE_HAPPENED, "Needs you", "ask"),
    (tasks.TASK_STATE_QUEUED, 0, "Queued", "calm"),
    (tasks.TASK_STATE_RUNNING, 0, "Running", "calm"),
    (tasks.TASK_STATE_STOPPED, tasks.TASK_OUTCOME_NOT_DONE, "Stopped", "quiet"),
    (tasks.TASK_STATE_STOPPED, 0, "Stopped", "quiet"),
    (tasks.TASK_STATE_DONE, tasks.TASK_OUTCOME_DONE, "Done", "good"),
    (tasks.TASK_STATE_DONE, tasks.TASK_OUTCOME_NOT_DONE, "Didn't finish", "bad"),
    (tasks.TASK_STATE_DONE, tasks.TASK_OUTCOME_MAY_HAVE_HAPPENED, "May have happened", "check"),
    (tasks.TASK_STATE_FAILED, tasks.TASK_OUTCOME_NOT_DONE, "Didn't finish", "bad"),
    (
        tasks.TASK_STATE_INTERRUPTED,
        tasks.TASK_OUTCOME_MAY_HAVE_HAPPENED,
        "May have happened",
        "check",
    ),
    # Ended before outcomes were judged: the state's words, as before.
    (tasks.TASK_STATE_DONE, 0, "Done", "good"),
    (tasks.TASK_STATE_FAILED, 0, "Stopped short: check, then continue", "check"),
    (tasks.TASK_STATE_INTERRUPTED, 0, "Interrupted: check, then continue", "check"),
]


@pytest.mark.parametrize(("state", "outcome", "said", "colour"), BADGES)
def test_a_tasks_badge_is_its_outcome_once_it_ended(state, outcome, said, colour):
    assert words.task_badge(tasks.Task(state=state, outcome=outcome)) == (said, colour)


@pytest.mark.parametrize("state", [tasks.TASK_STATE_FAILED, tasks.TASK_STATE_INTERRUPTED])
def test_a_run_that_failed_is_never_a_green_done(state):
    for outcome in (0, *words.TASK_OUTCOME):
        shown = words.task_badge(tasks.Task(state=state, outcome=outcome))
        assert shown != ("Done", "good") or outcome == tasks.TASK_OUTCOME_DONE


def test_the_models_words_are_a_note_never_the_verdict():
    finished = "The desk lamp is paid for."
    done = tasks.Task(
        state=tasks.TASK_STATE_DONE, outcome=tasks.TASK_OUTCOME_DONE, message=finished
    )
    assert words.outcome_note(done) == finished
    declined = tasks.Task(
        state=tasks.TASK_STATE_DONE,
        outcome=tasks.TASK_OUTCOME_NOT_DONE,
        outcome_reason="PAYMENT_DECLINED",
        message=finished,
    )
    assert words.task_badge(declined) == ("Didn't finish", "bad")
    assert words.outcome_sentence(declined) == "The shop declined the payment."
    assert words.outcome_note(declined) == finished
    # nod's own words of a failed run are the sentence, not a note too.
    failed = tasks.Task(
        state=tasks.TASK_STATE_FAILED,
        outcome=tasks.TASK_OUTCOME_NOT_DONE,
        outcome_reason="RUN_FAILED",
        message="nod lost track of this task's run",
    )
    assert words.outcome_note(failed) == ""
    stopped = tasks.Task(state=tasks.TASK_STATE_STOPPED, message="stopped by the person")
    assert words.outcome_note(stopped) == ""
    running = tasks.Task(state=tasks.TASK_STATE_RUNNING, message="an earlier run's words")
    assert words.outcome_note(running) == ""
    # An older record, failed: its message is the sentence.
    older = tasks.Task(state=tasks.TASK_STATE_FAILED, message="nod lost track of this task's run")
    assert words.outcome_sentence(older) == older.message
    assert words.outcome_note(older) == ""


def test_a_failed_model_request_is_said_without_the_providers_answer():
    said = words.model_attempt(503, True, 2.0)
    assert said == "The model provider didn't answer (HTTP 503); nod tried again in 2.0 s"
    assert words.model_attempt(0, False, 0).endswith("; nod didn't try again")
    assert "{" not in words.model_attempt(200, False, 0)
