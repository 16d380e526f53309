"""A second try where one is honest: a one-time code the site refused may be
asked for again. Each try is a new explicit request (a new private form, the
person typing a new code, a new claim under a new operation id), never the
old code typed again; after MAX_CODE_TRIES refused codes in a task nod asks
no more and says so, as sites lock an account after a few wrong codes."""

from collections.abc import Iterable

from nod_tasks.domain.checks import Check
from nod_tasks.domain.results import Submitted
from nod_tasks.domain.steps import StepRecord
from nod_tasks.domain.tasks import FormKind

MAX_CODE_TRIES = 3
TOO_MANY = (
    f"the site refused {MAX_CODE_TRIES} one-time codes in this task; nod asks for no more"
    " (sites lock an account after a few wrong codes): tell the person"
)


def refused_codes(steps: Iterable[StepRecord]) -> int:
    """How many one-time codes the site said no to in this task."""
    return sum(
        1
        for step in steps
        if isinstance(step.result, Submitted)
        and step.result.form_kind == FormKind.ONE_TIME_CODE.value
        and step.result.check == Check.DID_NOT_WORK
    )


def may_ask_again(steps: Iterable[StepRecord]) -> bool:
    return refused_codes(steps) < MAX_CODE_TRIES
