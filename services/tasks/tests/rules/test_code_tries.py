"""A one-time code the site refused may be asked for again, each time a new
request; after three refused codes in a task nod asks for no more."""

from nod_tasks.domain.checks import Check
from nod_tasks.domain.codes import MAX_CODE_TRIES, may_ask_again, refused_codes
from nod_tasks.domain.pages import Page
from nod_tasks.domain.results import Submitted
from nod_tasks.domain.steps import StepState

from .test_login_rule import step

CODE_PAGE = Page(url="https://shop.test/otp", text="Enter the code")


def code_entry(check: Check, form_kind: str = "one_time_code", number: int = 1):
    result = Submitted(check, f"claim-{number}", CODE_PAGE, form_kind=form_kind)
    return step(StepState.DONE, result, number=number)


def test_only_refused_one_time_codes_count():
    earlier = [
        code_entry(Check.DID_NOT_WORK, number=1),
        code_entry(Check.UNCLEAR, number=2),
        code_entry(Check.DID_NOT_WORK, form_kind="password", number=3),
        code_entry(Check.WORKED, number=4),
    ]
    assert refused_codes(earlier) == 1 and may_ask_again(earlier)


def test_after_three_refused_codes_no_more_are_asked_for():
    earlier = [code_entry(Check.DID_NOT_WORK, number=n) for n in range(1, MAX_CODE_TRIES + 1)]
    assert MAX_CODE_TRIES == 3
    assert not may_ask_again(earlier)
    assert may_ask_again(earlier[:-1])
