"""G6: a saved login that doesn't get through is not entered again in the
task; the next try opens the private form instead.

"Doesn't get through" is read from every step that entered the login,
however it ended: its check said no or was unclear, or the entry itself has
no definite end (UNCERTAIN, or still RUNNING: cut off by Stop, a crash or a
restart before its check). Only a step that definitely typed nothing (NOT_RUN,
FAILED) or whose check said it worked leaves the login usable. The login a
step enters is recorded when the step starts (Subject), so a step cut off
before its result still counts.
"""

from collections.abc import Iterable

from nod_tasks.domain.checks import Check
from nod_tasks.domain.results import Recorded, Submitted
from nod_tasks.domain.steps import StepRecord, StepState

NOTHING_TYPED = frozenset({StepState.NOT_RUN, StepState.FAILED})


def got_through(step: StepRecord) -> bool:
    """Whether a step that entered a saved login is known to have signed in."""
    if step.state != StepState.DONE:
        return False
    result = step.result
    if isinstance(result, Submitted):
        return result.check == Check.WORKED
    if isinstance(result, Recorded):  # written by an earlier version
        return result.view.get("check") == Check.WORKED.value
    return False


def refused_logins(steps: Iterable[StepRecord]) -> set[str]:
    """The saved logins this task may not enter again."""
    return {
        step.subject.login_id
        for step in steps
        if step.subject.login_id and step.state not in NOTHING_TYPED and not got_through(step)
    }


REFUSED = (
    "this saved login did not get through earlier in this task and is not entered again:"
    " use ask_private_form with kind login"
)
