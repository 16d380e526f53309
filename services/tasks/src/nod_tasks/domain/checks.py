"""Reading the page after a private entry (G3, G6, G8): did it work? The
answer is recorded beside the claim (RecordCheck) or the payment's outcome,
never instead of its state. And the saved-login rule: a saved login that
didn't get through is not entered again in the task. Plain Python over the
page as the browser service reads it (masked)."""

from enum import StrEnum
from typing import Any

from nod_tasks.domain.steps import StepRecord, StepState


class Check(StrEnum):
    WORKED = "worked"
    DID_NOT_WORK = "did_not_work"
    UNCLEAR = "unclear"


class PaymentOutcome(StrEnum):
    PAID = "paid"
    DECLINED = "declined"
    UNKNOWN = "unknown"


def _notices(page: dict[str, Any], kind: str) -> list[str]:
    return [n.get("text", "") for n in page.get("notices", []) if n.get("kind") == kind]


def _past(page: dict[str, Any], form_flag: str) -> Check:
    """The form the value went into is gone: it worked. Still there with an
    error: it did not. Anything else: unclear, and so is a page that isn't
    the site's at all (the browser's own error page or a blank one after a
    cut-off submit: the form is gone from it, but nothing is known)."""
    if not str(page.get("url", "")).startswith(("http://", "https://")):
        return Check.UNCLEAR
    if not page.get(form_flag):
        return Check.UNCLEAR if _notices(page, "error") else Check.WORKED
    return Check.DID_NOT_WORK if _notices(page, "error") else Check.UNCLEAR


def check_login(page: dict[str, Any]) -> Check:
    return _past(page, "loginFormPresent")


def check_code(page: dict[str, Any]) -> Check:
    return _past(page, "codeFormPresent")


def payment_outcome(page: dict[str, Any]) -> PaymentOutcome:
    if _notices(page, "success") and not page.get("paymentFormPresent"):
        return PaymentOutcome.PAID
    if _notices(page, "error") and page.get("paymentFormPresent"):
        return PaymentOutcome.DECLINED
    return PaymentOutcome.UNKNOWN


def refused_logins(steps: list[StepRecord]) -> set[str]:
    """G6: the saved logins this task entered and that didn't get through
    (the page said no, or it was unclear, or the entry itself is uncertain)."""
    refused = set()
    for step in steps:
        result = step.result or {}
        login_id = result.get("login_id")
        if not login_id:
            continue
        uncertain = step.state == StepState.UNCERTAIN
        if uncertain or (result.get("entered") and result.get("check") != Check.WORKED.value):
            refused.add(str(login_id))
    return refused
