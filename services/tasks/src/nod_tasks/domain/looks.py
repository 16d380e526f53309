"""Look for me (G14): where an uncertain step's result would show, and what
counts as evidence that it happened there.

A look reads; it never types, presses or signs in (the browser enforces
it). Its address comes from the records (the app account's status
address, the payment's merchant, the page the entry was made on), never
from the model's words. Only a sign that it happened is evidence: a page
that shows nothing of it is no proof it didn't (a request may still be on
its way, a list may lag), so a look never concludes "it didn't happen".
Whatever it finds, the step stays UNCERTAIN and the person decides.
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from urllib.parse import urljoin

from nod_tasks.domain.pages import Page, PageControl, origin_of
from nod_tasks.domain.steps import StepRecord


class Finding(StrEnum):
    FOUND = "found"
    NO_SIGN = "no_sign"
    NOTHING_TO_READ = "nothing_to_read"


@dataclass(frozen=True)
class StepLook:
    """A look at an uncertain step, kept beside it as evidence."""

    step: int
    finding: Finding
    # What nod found, in a sentence for the person.
    sentence: str
    # Where it looked; "" when there was nothing to read.
    url: str
    looked_at: datetime
    has_image: bool = False


class LookKind(StrEnum):
    """Which record an uncertain step's result would show in."""

    # An app action: the app's own list of what it received.
    APP = "app"
    # A payment: the merchant's list of the person's orders.
    ORDER = "order"
    # A sign-in or a code: the site's account page.
    SIGN_IN = "sign_in"


# The words of a link to the place a look reads, on the site's own pages.
ORDER_LINKS = re.compile(r"\b(your|my)\s+orders\b|\border\s+history\b|^\s*orders\s*$", re.I)
ACCOUNT_LINKS = re.compile(r"\b(your|my)\s+account\b|^\s*account\s*$|\bprofile\b", re.I)
# What an account page says of a person signed in, beside a sign-out control.
SIGNED_IN_WORDS = re.compile(r"\b(signed|logged)\s+in\s+as\b", re.I)
# A time a page states with its zone (ISO 8601 with Z or an offset, or
# "UTC"): a time without one can't be compared with the entry's.
STATED_TIME = re.compile(
    r"(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2})?)\s*(Z|UTC|[+-]\d{2}:?\d{2})\b"
)
# Clocks differ: an order stated a little before the entry began is still
# taken for it; one well before is an earlier order.
CLOCK_SLACK = timedelta(seconds=5)

APP_SEEN = "The app lists this action as received (its key {key} is on the page)."
APP_NOT_SEEN = (
    "nod read the app's list of what it received and did not see this action. That is no"
    " proof it didn't arrive: check in the app."
)
APP_NO_PLACE = (
    "This app gives nod no page to read what it received (its account names no status"
    " address), so nod can't look. Check in the app."
)
EMAIL_NO_PLACE = "nod can't read a mailbox, so it can't look for an email. Check the mailbox."
ORDER_SEEN = "The shop lists an order of {amount} placed at {at}, after the card went in."
ORDER_NOT_SEEN = (
    "nod read the shop's order list and saw no order of {amount} since the card went in."
    " That is no proof there is none: check your orders or your card statement."
)
ORDER_NO_LIST = (
    "nod found no order list on the shop's pages it could read. Check your orders on the"
    " site or your card statement."
)
SIGNED_IN_SEEN = "The site shows you signed in on its account page."
SIGNED_IN_NOT_SEEN = (
    "The site's account page doesn't show you signed in. That is no proof the entry didn't"
    " reach the site: check there."
)
NO_ACCOUNT_PAGE = "nod found no account page on the site to look at. Check on the site."
SESSION_GONE = (
    "The page with your sign-in on this site is closed, and nod never signs in again just to"
    " look. Check on the site yourself."
)
UNREADABLE = "The page nod looked at showed nothing it could read. Check there yourself."


def look(step: int, finding: Finding, sentence: str, url: str = "") -> StepLook:
    return StepLook(step, finding, sentence, url, datetime.now(UTC))


def link_to(page: Page, words: re.Pattern[str], origin: str) -> str:
    """The address of the first link on the page whose words match, on the
    same site (a look never follows a link to another site)."""
    for control in _links(page.controls):
        if not words.search(control.text):
            continue
        address = urljoin(page.url, control.href)
        if origin_of(address) == origin:
            return address
    return ""


def _links(controls: Iterable[PageControl]) -> Iterable[PageControl]:
    return (c for c in controls if c.kind == "link" and c.href and not c.disabled)


def page_origin_before(every_step: Iterable[StepRecord], number: int) -> str:
    """The site of the last page the task read before step `number`, as the
    browser reported it in an earlier step's result."""
    origin = ""
    for step in every_step:
        if step.number >= number or step.result is None:
            continue
        shown = step.result.for_model().get("page")
        if isinstance(shown, dict) and (seen := origin_of(str(shown.get("url", "")))):
            origin = seen
    return origin


def received(page: Page, execution_id: str) -> bool:
    """The app's page names this execution (its idempotency key)."""
    return bool(execution_id) and execution_id in page.text


def signed_in(page: Page) -> bool:
    """An account page that shows the person signed in: no sign-in or code
    form on it, and a sign-out control or "signed in as" words."""
    if not page.readable or page.login_form or page.code_form:
        return False
    return page.sign_out or bool(SIGNED_IN_WORDS.search(page.text))


def amount_words(amount_minor: int, currency: str) -> tuple[str, ...]:
    """How a page may write the amount: "25.00" beside the currency's code
    or sign."""
    number = f"{amount_minor // 100}.{amount_minor % 100:02d}"
    signs = {"EUR": "€", "USD": "$", "GBP": "£"}
    written = [f"{number} {currency}", f"{currency} {number}"]
    if sign := signs.get(currency.upper()):
        written += [f"{sign}{number}", f"{sign} {number}", f"{number} {sign}", f"{number}{sign}"]
    return tuple(written)


def order_since(page: Page, amount_minor: int, currency: str, since: datetime) -> datetime | None:
    """When an order of this amount was placed, if the page lists one on a
    line that states its time (with its zone) at or after `since`."""
    amounts = amount_words(amount_minor, currency)
    for line in page.text.splitlines():
        if not any(amount in line for amount in amounts):
            continue
        for stated in STATED_TIME.finditer(line):
            at = _parse_time(stated)
            if at is not None and at >= since - CLOCK_SLACK:
                return at
    return None


def _parse_time(stated: re.Match[str]) -> datetime | None:
    day, time, zone = stated.groups()
    zone = "+00:00" if zone in ("Z", "UTC") else zone
    if len(zone) == 5:  # +0100
        zone = f"{zone[:3]}:{zone[3:]}"
    try:
        return datetime.fromisoformat(f"{day}T{time}{zone}")
    except ValueError:
        return None


def money(amount_minor: int, currency: str) -> str:
    return f"{amount_minor // 100}.{amount_minor % 100:02d} {currency}"
