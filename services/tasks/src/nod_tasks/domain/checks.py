"""Reading the page after a private entry (G3, G6, G8): did it work? The
answer is recorded beside the claim (RecordCheck) or as the payment's
outcome, never instead of its state.

Only the site's own page, read once it has settled, can say so; a page that
shows nothing readable (still loading, only a title, the browser's own
error page) is always unclear. An entry worked when the site moved past the
step it was typed into (the form gone from every frame, a sign-out control
shown, the next step of a sign-in asked for); it did not when the site says
so (an error, a field marked invalid, the same step shown again with a
message); anything else is unclear.
"""

import re
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


# Text that says a payment went through, when no notice says so.
PAID_WORDS = re.compile(
    r"thank you for your (order|payment|purchase)|thanks for your order|"
    r"order (is |has been )?(confirmed|placed|complete)|"
    r"payment (was |has been )?(successful|received|accepted|complete)",
    re.IGNORECASE,
)
# A control that places the order a review page shows (the card given already).
PLACE_ORDER_WORDS = re.compile(
    r"\b(place|submit|confirm|complete) (the |my |your )?(order|purchase|payment)\b|"
    r"\b(buy|pay|order) now\b|\bconfirm and pay\b",
    re.IGNORECASE,
)
# Card fields a page still asks for (the card step, not its review).
CARD_FIELDS = ("card_number", "card_expiry", "card_security_code")
# A bank asking the person to confirm the payment (3-D Secure).
BANK_WORDS = re.compile(
    r"3-?d ?secure|confirm (it |the payment |this payment )?in your (bank|banking)|"
    r"verify (it's|it is) you|authenticat(e|ion) (the|your) payment|approve (the|this) payment",
    re.IGNORECASE,
)


def _refused(page: Page, step_still_shown: bool) -> bool:
    """The site says no: an error, a field it marks invalid, or the same
    step shown again with a message."""
    if page.notices_of("error") or any(f.invalid for f in page.fields):
        return True
    return step_still_shown and bool(page.notices)


def _past(page: Page, step_still_shown: bool) -> Check:
    if not page.readable:
        return Check.UNCLEAR
    if _refused(page, step_still_shown):
        return Check.DID_NOT_WORK if step_still_shown else Check.UNCLEAR
    if page.sign_out or not step_still_shown:
        return Check.WORKED
    return Check.UNCLEAR


def check_login(page: Page) -> Check:
    """After a sign-in's secret (a password, a TOTP code) went in. A code
    step the site asks for next means the password got through."""
    if page.sign_out and page.readable and not page.notices_of("error"):
        return Check.WORKED
    return _past(page, page.login_form)


def check_username_step(page: Page) -> Check:
    """After the first page of a two-step sign-in (the username alone): it
    went through when the site asks for the password."""
    if not page.readable:
        return Check.UNCLEAR
    if page.notices_of("error") or any(f.invalid for f in page.fields):
        return Check.DID_NOT_WORK
    return Check.WORKED if page.fields_taking("password") or page.login_form else Check.UNCLEAR


def check_code(page: Page) -> Check:
    return _past(page, page.code_form)


def asks_bank_confirmation(page: Page) -> bool:
    """The bank asks the person to confirm the payment (3-D Secure): in the
    page, in a frame of its own, or in a page the site opened."""
    said = " ".join((page.title, page.text, *page.headings))
    in_frames = " ".join(f.title + " " + f.url for f in page.frames[1:])
    opened = any(p.opener_page_id for p in page.pages)
    return bool(BANK_WORDS.search(said) or BANK_WORDS.search(in_frames)) or opened


def payment_outcome(page: Page) -> PaymentOutcome:
    if not page.readable:
        return PaymentOutcome.UNKNOWN
    if page.notices_of("error") or any(f.invalid for f in page.fields):
        return PaymentOutcome.DECLINED if page.payment_form else PaymentOutcome.UNKNOWN
    if awaits_order(page):
        # A page that still offers to place the order has charged nothing,
        # whatever box it shows in a success style.
        return PaymentOutcome.UNKNOWN
    said = " ".join((page.text, *page.headings, *page.notices_of("success")))
    if not page.payment_form and (page.notices_of("success") or PAID_WORDS.search(said)):
        return PaymentOutcome.PAID
    return PaymentOutcome.UNKNOWN


def awaits_order(page: Page) -> bool:
    """After the card went in, the shop shows a review page rather than an
    outcome: the card fields are gone, nothing says paid or declined, and a
    control places the order. Nothing is charged until it is pressed."""
    if not page.readable or page.payment_form or page.fields_taking(*CARD_FIELDS):
        return False
    if page.notices_of("error") or any(f.invalid for f in page.fields):
        return False
    said = " ".join((page.text, *page.headings, *page.notices_of("success")))
    if PAID_WORDS.search(said):
        return False
    return any(
        PLACE_ORDER_WORDS.search(control.text) and not control.disabled
        for control in page.controls
        if control.kind in ("submit", "button")
    )
