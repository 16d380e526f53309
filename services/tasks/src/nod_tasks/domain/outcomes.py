"""How an ended task came out for the person: done, didn't finish, or may
have happened, beside its state (which says how it ended).

The steps' own results overrule what the model said when it finished: a
sign-in the site refused, a declined payment or an app action that didn't
run can't end "done", whatever the model's words. For each kind of thing a
task does to the person's things (a private entry, a payment, an app
action) the last attempt decides, so a wrong code then a right one is done.
An UNCERTAIN step nobody resolved makes the task "may have happened"; the
person's resolution counts as what happened. Judged from light facts of
each step (StepFact), read for many tasks at once.
"""

from dataclasses import dataclass

from nod_tasks.domain.reasons import Reason
from nod_tasks.domain.steps import Resolution, StepState
from nod_tasks.domain.tasks import Judged, Outcome, TaskState

ENTRY_TOOLS = frozenset({"enter_saved_login", "enter_from_private_form"})
PAYMENT_TOOLS = frozenset({"pay", "confirm_payment", "request_payment"})
ACTION_TOOLS = frozenset({"propose_app_action"})


@dataclass(frozen=True)
class StepFact:
    """What the judging reads of one step: its state and its result's tags."""

    number: int
    tool: str
    state: StepState
    resolution: Resolution | None = None
    # The result's type tag (results.KINDS) and the fields the rules read.
    result: str = ""
    check: str = ""
    paid: str = ""
    code: str = ""
    claimed: str = ""
    form_kind: str = ""


DONE = Judged(Outcome.DONE)
ENDED_BY_STATE = {
    TaskState.FAILED: Reason.RUN_FAILED,
    TaskState.INTERRUPTED: Reason.INTERRUPTED,
    TaskState.STOPPED: Reason.STOPPED,
}


def judge(state: TaskState, facts: list[StepFact]) -> Judged | None:
    """The outcome of a task in `state` with these steps (in order); None
    while it has not ended."""
    if state not in (TaskState.DONE, *ENDED_BY_STATE):
        return None
    if (unsure := _unresolved(facts)) is not None:
        return unsure
    failing = [f for f in (_last_entry(facts), _last_payment(facts), _last_action(facts)) if f]
    if failing:
        return max(failing, key=lambda judged: judged.step)
    if state in ENDED_BY_STATE:
        return Judged(Outcome.NOT_DONE, ENDED_BY_STATE[state])
    return _as_finished(facts)


def _unresolved(facts: list[StepFact]) -> Judged | None:
    for fact in reversed(facts):
        if fact.state == StepState.UNCERTAIN and fact.resolution is None:
            return Judged(Outcome.MAY_HAVE_HAPPENED, _uncertain_reason(fact), fact.number)
    return None


def _uncertain_reason(fact: StepFact) -> Reason:
    if fact.tool in ENTRY_TOOLS:
        return Reason.ENTRY_UNCERTAIN
    if fact.tool in PAYMENT_TOOLS:
        return Reason.PAYMENT_UNCERTAIN
    if fact.tool in ACTION_TOOLS:
        return Reason.APP_ACTION_UNCERTAIN
    return Reason.STEP_UNCERTAIN


def _last(facts: list[StepFact], tools: frozenset[str]) -> StepFact | None:
    """The last attempt of a thing: a step of these tools that reached its
    service (a call refused by the tasks service's own rules, or one still
    waiting for the person, is no attempt)."""
    for fact in reversed(facts):
        if fact.tool not in tools or fact.state == StepState.RUNNING:
            continue
        if fact.state == StepState.NOT_RUN and fact.code not in ANSWERS_OF_THE_PERSON:
            continue
        return fact
    return None


# A step not run because of what the person answered: the thing was tried.
ANSWERS_OF_THE_PERSON = frozenset({Reason.PERSON_SAID_NO, Reason.EXPIRED})


def _refused(fact: StepFact) -> Judged | None:
    """A step that failed with nothing done (nod's or a service's refusal)."""
    if fact.state == StepState.FAILED and fact.code:
        return Judged(Outcome.NOT_DONE, fact.code, fact.number)
    return None


def _did_not_happen(fact: StepFact) -> bool:
    return fact.state == StepState.UNCERTAIN and fact.resolution == Resolution.DID_NOT_HAPPEN


def _last_entry(facts: list[StepFact]) -> Judged | None:
    fact = _last(facts, ENTRY_TOOLS)
    if fact is None or fact.resolution == Resolution.HAPPENED:
        return None
    if (refused := _refused(fact)) is not None:
        return refused
    if fact.check == "did_not_work" or _did_not_happen(fact) or fact.state == StepState.FAILED:
        code = fact.form_kind == "one_time_code"
        reason = Reason.CODE_NOT_ACCEPTED if code else Reason.SIGN_IN_REFUSED
        return Judged(Outcome.NOT_DONE, reason, fact.number)
    if fact.check == "unclear":
        return Judged(Outcome.NOT_DONE, Reason.SIGN_IN_UNCLEAR, fact.number)
    return None


def _last_payment(facts: list[StepFact]) -> Judged | None:
    fact = _last(facts, PAYMENT_TOOLS)
    if fact is None or fact.resolution == Resolution.HAPPENED:
        return None
    if fact.tool == "request_payment":
        # A yes not yet used by pay is no payment; a no is a payment not made.
        if fact.state == StepState.DONE:
            return None
        return Judged(Outcome.NOT_DONE, Reason.PAYMENT_NOT_APPROVED, fact.number)
    if (refused := _refused(fact)) is not None:
        return refused
    if fact.paid == "declined" or fact.state == StepState.FAILED or _did_not_happen(fact):
        return Judged(Outcome.NOT_DONE, Reason.PAYMENT_DECLINED, fact.number)
    if fact.paid == "unknown":
        return Judged(Outcome.MAY_HAVE_HAPPENED, Reason.PAYMENT_UNKNOWN, fact.number)
    if fact.result == "awaits_order":
        # The shop holds the card on its review page; the order was never
        # placed, and the payment ends UNCERTAIN with the task.
        return Judged(Outcome.MAY_HAVE_HAPPENED, Reason.PAYMENT_UNCERTAIN, fact.number)
    return None


def _last_action(facts: list[StepFact]) -> Judged | None:
    fact = _last(facts, ACTION_TOOLS)
    if fact is None or fact.resolution == Resolution.HAPPENED or fact.state == StepState.DONE:
        return None
    if fact.state == StepState.NOT_RUN:
        return Judged(Outcome.NOT_DONE, Reason.APP_ACTION_NOT_RUN, fact.number)
    if (refused := _refused(fact)) is not None:
        return refused
    return Judged(Outcome.NOT_DONE, Reason.APP_ACTION_FAILED, fact.number)


def _as_finished(facts: list[StepFact]) -> Judged:
    """Ended DONE with nothing failing: as the model said, unless the step
    before its finish was refused or failed (then that is why, whatever
    the model's words)."""
    finish = facts[-1] if facts and facts[-1].result == "finished" else None
    before = [f for f in facts if f is not finish]
    if before and before[-1].state in (StepState.NOT_RUN, StepState.FAILED):
        last = before[-1]
        fallback = Reason.STEP_REFUSED if last.state == StepState.NOT_RUN else Reason.STEP_FAILED
        return Judged(Outcome.NOT_DONE, last.code or fallback, last.number)
    if finish is not None and finish.claimed == "not_done":
        return Judged(Outcome.NOT_DONE, Reason.NOT_FINISHED, finish.number)
    return DONE
