"""G8 on a checkout with a review page, without a database: the page after
the card says the shop awaits the order; confirm_payment places a payment's
order at most once, and only while its card awaits it, read from the typed
results of every earlier step however it ended (a restart or Stop included);
a task's end finds the orders left open."""

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from nod_tasks.domain import orders
from nod_tasks.domain.checks import PaymentOutcome, awaits_order, payment_outcome
from nod_tasks.domain.pages import Notice, Page, PageControl, PageField
from nod_tasks.domain.results import (
    AwaitsOrder,
    MayHaveHappened,
    NotRun,
    PageShown,
    Paid,
    StepResult,
    from_json,
    to_json,
)
from nod_tasks.domain.steps import StepRecord, StepState, Subject
from nod_tasks.domain.tools import BY_NAME, CutOff, places_order, plan_call

PAYMENT = "payment-1"
REVIEW = Page(
    url="https://shop.test/checkout/preview/",
    title="Preview order",
    headings=("Preview order",),
    text="Shipping address Grace Hopper Basket The Art of Computer Programming £12.00",
    controls=(
        PageControl("e3", kind="link", text="Change payment details"),
        PageControl("e9", kind="submit", text="Place order"),
    ),
)
CARD_STEP = Page(
    url="https://shop.test/checkout/payment-details/",
    text="Enter payment details",
    fields=(PageField("e1", name="number", private_kind="card_number"),),
    controls=(PageControl("e2", kind="submit", text="Continue"),),
    payment_form=True,
)
THANKS = Page(url="https://shop.test/checkout/thank-you/", text="Thank you for your order")
AWAITS = AwaitsOrder(PAYMENT, "claim-1", REVIEW)


def step(
    tool: str,
    state: StepState,
    result: StepResult | None,
    number: int,
    payment_id: str = PAYMENT,
    runner: str | None = None,
) -> StepRecord:
    return StepRecord(
        task_id="t", number=number, call_id=f"c{number}", tool=tool,
        arguments={"payment_id": payment_id}, state=state, result=result, reason="",
        subject=Subject(payment_id=payment_id), runner_instance=runner, claim_id=None,
        approval_id=None, resolution=None, started_at=datetime.now(UTC), ended_at=None,
    )  # fmt: skip


PAID_ON_REVIEW = step("pay", StepState.DONE, AWAITS, 1)


# --- the page after the card ---------------------------------------------


def test_a_review_page_with_a_place_order_control_awaits_the_order():
    assert payment_outcome(REVIEW) == PaymentOutcome.UNKNOWN
    assert awaits_order(REVIEW)


def test_a_success_styled_box_on_a_review_page_is_no_payment():
    # django-oscar's preview shows "Payment details to go here" in a success alert.
    boxed = replace(REVIEW, notices=(Notice("success", "Payment Payment details to go here"),))
    assert awaits_order(boxed)
    assert payment_outcome(boxed) == PaymentOutcome.UNKNOWN


@pytest.mark.parametrize(
    "page",
    [
        CARD_STEP,  # the card step shown again
        THANKS,  # paid at once: no review
        Page(url="https://shop.test/x", text="Preview", controls=(PageControl("e1", "link"),)),
        Page(
            url=REVIEW.url,
            text=REVIEW.text,
            controls=REVIEW.controls,
            notices=(Notice("error", "Your card was declined."),),
        ),
        # The browser's own error page, not the shop's.
        Page(url="chrome-error://chromewebdata/", text=REVIEW.text, controls=REVIEW.controls),
        Page(
            url=REVIEW.url,
            text=REVIEW.text,
            controls=(PageControl("e9", kind="submit", text="Place order", disabled=True),),
        ),
    ],
)
def test_a_page_without_an_order_to_place_does_not_await_one(page):
    assert not awaits_order(page)


def test_the_awaited_order_is_kept_typed_and_tells_the_model_what_to_do():
    assert from_json(to_json(AWAITS)) == AWAITS
    view = AWAITS.for_model()
    assert view["paid"] == "not_yet" and "confirm_payment" in view["next"]


# --- confirm_payment: once, and only while the card awaits its order -----


def test_the_order_of_a_card_awaiting_it_may_be_placed():
    assert orders.confirm_refusal(PAYMENT, [PAID_ON_REVIEW]) is None
    assert orders.awaiting_order(PAYMENT, [PAID_ON_REVIEW]) == AWAITS


@pytest.mark.parametrize(
    ("state", "result"),
    [
        (StepState.DONE, Paid(PAYMENT, PaymentOutcome.PAID, THANKS)),
        (StepState.DONE, Paid(PAYMENT, PaymentOutcome.DECLINED, CARD_STEP)),
        (StepState.DONE, Paid(PAYMENT, PaymentOutcome.UNKNOWN, THANKS)),
        # Cut off by a restart (still RUNNING) or by Stop (ended UNCERTAIN).
        (StepState.RUNNING, None),
        (StepState.UNCERTAIN, MayHaveHappened("it was stopped while it ran")),
    ],
)
def test_an_order_placed_once_however_it_ended_is_never_placed_again(state, result):
    before = [PAID_ON_REVIEW, step("confirm_payment", state, result, 2)]
    refusal = orders.confirm_refusal(PAYMENT, before)
    assert refusal is not None and "never placed twice" in refusal
    assert "step 2" in refusal


def test_a_confirm_refused_before_anything_was_pressed_leaves_the_order_to_place():
    before = [PAID_ON_REVIEW, step("confirm_payment", StepState.NOT_RUN, NotRun("no"), 2)]
    assert orders.confirm_refusal(PAYMENT, before) is None


@pytest.mark.parametrize(
    ("pay", "why"),
    [
        (None, "use pay first"),
        (step("pay", StepState.DONE, Paid(PAYMENT, PaymentOutcome.PAID, THANKS), 1), "known"),
        (step("pay", StepState.DONE, Paid(PAYMENT, PaymentOutcome.DECLINED, CARD_STEP), 1),
         "known"),
        (step("pay", StepState.UNCERTAIN, MayHaveHappened("cut off"), 1), "no definite end"),
        (step("pay", StepState.RUNNING, None, 1), "no definite end"),
        (step("pay", StepState.FAILED, None, 1), "did not go in on a review page"),
    ],
)  # fmt: skip
def test_a_payment_whose_card_awaits_no_order_has_none_to_place(pay, why):
    refusal = orders.confirm_refusal(PAYMENT, [pay] if pay else [])
    assert refusal is not None and why in refusal


def test_another_payments_steps_do_not_count():
    other = step("confirm_payment", StepState.DONE, None, 2, payment_id="payment-2")
    assert orders.confirm_refusal(PAYMENT, [PAID_ON_REVIEW, other]) is None


def test_confirm_payment_is_stated_as_a_call_that_may_have_happened_when_cut_off():
    tool = BY_NAME["confirm_payment"]
    assert tool.cut_off == CutOff.MAY_HAVE_HAPPENED and not tool.enters_private
    placed_at_e9 = {"payment_id": PAYMENT, "target": "e9"}
    planned = plan_call("confirm_payment", dict(placed_at_e9), [], {})
    assert planned.subject == Subject(payment_id=PAYMENT) and not planned.refused
    again = plan_call(
        "confirm_payment",
        {"payment_id": PAYMENT, "target": "e9"},
        [replace(step("confirm_payment", StepState.UNCERTAIN, None, 2), arguments=placed_at_e9)],
        {},
    )
    assert again.refused.startswith("identical to step 2")
    assert places_order(step("confirm_payment", StepState.DONE, None, 2))


# --- a task's end --------------------------------------------------------


def test_the_tasks_end_finds_each_order_left_open_and_the_step_that_placed_it():
    cut_off = step("confirm_payment", StepState.UNCERTAIN, MayHaveHappened("stopped"), 2)
    assert orders.open_orders([PAID_ON_REVIEW]) == [orders.OpenOrder(PAYMENT, "claim-1", None)]
    assert orders.open_orders([PAID_ON_REVIEW, cut_off]) == [
        orders.OpenOrder(PAYMENT, "claim-1", cut_off)
    ]
    paid_at_once = step("pay", StepState.DONE, Paid(PAYMENT, PaymentOutcome.PAID, THANKS), 1)
    assert orders.open_orders([paid_at_once]) == []


# --- a plain click is no way round confirm_payment -------------------------


def test_a_click_on_the_place_order_control_is_refused():
    refusal = orders.click_refusal("e9", [PAID_ON_REVIEW])
    assert refusal is not None and "confirm_payment" in refusal


def test_a_click_on_the_place_order_control_after_the_order_is_refused_too():
    placed = step("confirm_payment", StepState.DONE, Paid(PAYMENT, PaymentOutcome.PAID, THANKS), 2)
    # The shop shows the review page again (say, after Back).
    again = step("read_page", StepState.DONE, PageShown(REVIEW), 3)
    assert orders.click_refusal("e9", [PAID_ON_REVIEW, placed, again]) is not None


def test_other_clicks_on_the_review_page_go_ahead():
    assert orders.click_refusal("e3", [PAID_ON_REVIEW]) is None  # change payment details
    assert orders.click_refusal("e77", [PAID_ON_REVIEW]) is None  # no such control


def test_a_place_order_click_without_a_card_on_a_review_page_goes_ahead():
    # No card went in on a review page: the click is an ordinary click.
    browsed = step("read_page", StepState.DONE, PageShown(REVIEW), 1)
    assert orders.click_refusal("e9", [browsed]) is None


def test_enter_on_the_review_page_is_refused_other_keys_and_pages_go_ahead():
    on_review = [PAID_ON_REVIEW]
    refusal = orders.key_refusal("Enter", on_review)
    assert refusal is not None and "confirm_payment" in refusal
    assert orders.key_refusal("Tab", on_review) is None
    # The order placed and the shop moved on: Enter elsewhere is an ordinary key.
    placed = step("confirm_payment", StepState.DONE, Paid(PAYMENT, PaymentOutcome.PAID, THANKS), 2)
    assert orders.key_refusal("Enter", [PAID_ON_REVIEW, placed]) is None
