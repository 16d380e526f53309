"""Reading the page after a private entry (G3, G8): did it work? The answer
is recorded beside the claim (RecordCheck) or as the payment's outcome,
never instead of its state. Only the site's own page, read once it has
settled, can say so: a page that shows nothing readable (still loading,
only a title, the browser's own error page) is always unclear."""

from enum import StrEnum

from nod_tasks.domain.pages import Page


class Check(StrEnum):
    WORKED = "worked"
    DID_NOT_WORK = "did_not_work"
    UNCLEAR = "unclear"


class PaymentOutcome(StrEnum):
    PAID = "paid"
    DECLINED = "declined"
    UNKNOWN = "unknown"


def _past(page: Page, form_still_shown: bool) -> Check:
    """The form the value went into is gone and nothing went wrong: it
    worked. Still there with an error: it did not. Anything else: unclear."""
    if not page.readable:
        return Check.UNCLEAR
    errors = page.notices_of("error")
    if form_still_shown:
        return Check.DID_NOT_WORK if errors else Check.UNCLEAR
    return Check.UNCLEAR if errors else Check.WORKED


def check_login(page: Page) -> Check:
    return _past(page, page.login_form)


def check_code(page: Page) -> Check:
    return _past(page, page.code_form)


def payment_outcome(page: Page) -> PaymentOutcome:
    if not page.readable:
        return PaymentOutcome.UNKNOWN
    if page.notices_of("success") and not page.payment_form:
        return PaymentOutcome.PAID
    if page.notices_of("error") and page.payment_form:
        return PaymentOutcome.DECLINED
    return PaymentOutcome.UNKNOWN
