"""G8 on a checkout with a review page: pay enters the card and the shop
shows the order to review (AwaitsOrder); confirm_payment places it. The
order of a payment is placed at most once, and only while its card awaits
it; the rule is read from the task's typed step results, however they
ended (a step cut off by a restart or Stop ended UNCERTAIN, or is still
RUNNING: it counts as placed).

Plain Python; the tool statement is in domain/tools.py, the handler in
app/tools/ordering.py, what a task's end does with an order never placed in
app/endings.py.
"""

from collections.abc import Iterable
from dataclasses import dataclass

from nod_tasks.domain.checks import PLACE_ORDER_WORDS, awaits_order
from nod_tasks.domain.pages import Page
from nod_tasks.domain.results import AwaitsOrder, Paid, page_of
from nod_tasks.domain.steps import StepRecord, StepState

PAY = "pay"
CONFIRM = "confirm_payment"
NEVER_PLACED = (
    "the card went in and the shop showed its review page, but the order was never placed"
    " (the task ended first); the shop holds the card for that order: check it"
)
CUT_OFF = "the order was being placed when the task was cut off; the shop may have charged the card"


def _of(payment_id: str, tool: str, steps: Iterable[StepRecord]) -> list[StepRecord]:
    return [s for s in steps if s.tool == tool and s.subject.payment_id == payment_id]


def placing_steps(payment_id: str, steps: Iterable[StepRecord]) -> list[StepRecord]:
    """The confirm_payment steps that may have pressed the place-order control:
    all but those refused before anything was touched."""
    return [s for s in _of(payment_id, CONFIRM, steps) if s.state != StepState.NOT_RUN]


def awaiting_order(payment_id: str, steps: Iterable[StepRecord]) -> AwaitsOrder | None:
    """The review page a pay step of this payment landed on, if it did."""
    for step in reversed(_of(payment_id, PAY, steps)):
        if step.state == StepState.DONE and isinstance(step.result, AwaitsOrder):
            return step.result
        if step.state != StepState.NOT_RUN:
            return None
    return None


def confirm_refusal(payment_id: str, steps: list[StepRecord]) -> str | None:
    """Why confirm_payment may not place this payment's order; None if it may."""
    placed = placing_steps(payment_id, steps)
    if placed:
        first = placed[0]
        how = (
            "its outcome is uncertain: the person checks"
            if first.state
            in (
                StepState.RUNNING,
                StepState.UNCERTAIN,
            )
            else f"it ended {first.state.value}"
        )
        return (
            f"the order of this payment was placed already in step {first.number} ({how});"
            " an order is never placed twice"
        )
    if awaiting_order(payment_id, steps) is not None:
        return None
    pays = [s for s in _of(payment_id, PAY, steps) if s.state != StepState.NOT_RUN]
    if not pays:
        return "this payment's card was not entered: use pay first"
    last = pays[-1]
    if last.state == StepState.DONE and isinstance(last.result, Paid):
        known = last.result.paid.value
        return f"this payment's outcome is known ({known}): there is no order to place"
    if last.state in (StepState.RUNNING, StepState.UNCERTAIN):
        return "this payment's card entry has no definite end: the person checks first"
    return "this payment's card did not go in on a review page: there is no order to place"


def _reviewed(steps: list[StepRecord]) -> list[AwaitsOrder]:
    return [s.result for s in steps if s.tool == PAY and isinstance(s.result, AwaitsOrder)]


def _last_page(steps: list[StepRecord]) -> Page | None:
    return next((p for s in reversed(steps) if (p := page_of(s.result)) is not None), None)


def key_refusal(key: str, steps: list[StepRecord]) -> str | None:
    """Enter on a review page a card went in on may send its place-order
    form: refused like a click on that control."""
    reviewed = _reviewed(steps)
    page = _last_page(steps)
    if not reviewed or key.strip().lower() not in ("enter", "return") or page is None:
        return None
    if not awaits_order(page):
        return None
    return (
        f"Enter may place the order of payment {reviewed[-1].payment_id}: use confirm_payment,"
        " which places an order once and records what it paid"
    )


def click_refusal(target: str, steps: list[StepRecord]) -> str | None:
    """A plain click on the place-order control of a review page a card
    went in on is refused: the order is placed by confirm_payment alone,
    which keeps it to once. The control is known by its ref in the page the
    model last saw."""
    reviewed = _reviewed(steps)
    if not reviewed:
        return None
    page = _last_page(steps)
    control = next((c for c in page.controls if c.ref == target), None) if page else None
    if control is None or not PLACE_ORDER_WORDS.search(control.text):
        return None
    return (
        f"{target} places the order of payment {reviewed[-1].payment_id}: use confirm_payment,"
        " which places an order once and records what it paid"
    )


@dataclass(frozen=True)
class OpenOrder:
    """A payment whose card awaited its order when the task ended."""

    payment_id: str
    claim_id: str
    # A confirm_payment step that may have pressed place-order (cut off).
    placing: StepRecord | None


def open_orders(steps: list[StepRecord]) -> list[OpenOrder]:
    """Each payment whose card landed on a review page, with the step that
    placed its order if any; the payments service says which still run."""
    found = []
    for step in steps:
        if step.tool == PAY and step.state == StepState.DONE:
            result = step.result
            if isinstance(result, AwaitsOrder):
                placed = placing_steps(result.payment_id, steps)
                found.append(
                    OpenOrder(result.payment_id, result.claim_id, placed[0] if placed else None)
                )
    return found
