"""The page check after an entry, as plain rules: only the site's own page,
showing something readable, can say an entry worked."""

import pytest

from nod_tasks.domain.checks import (
    Check,
    PaymentOutcome,
    asks_bank_confirmation,
    check_code,
    check_login,
    check_username_step,
    payment_outcome,
)
from nod_tasks.domain.pages import Frame, Notice, OpenPage, Page, PageControl, PageField

WRONG = (Notice("error", "Wrong username or password"),)
SIGN_IN_FORM = (PageField("e1", "username"), PageField("e2", "password", "password", masked=True))


def test_the_form_gone_from_the_sites_readable_page_means_it_worked():
    page = Page(url="http://shop.test/account", title="Account", text="Welcome back, ada")
    assert check_login(page) == Check.WORKED


@pytest.mark.parametrize("url", ["chrome-error://chromewebdata/", "about:blank", ""])
def test_a_page_that_isnt_the_sites_can_not_say_it_worked(url):
    assert check_login(Page(url=url, text="This site can't be reached")) == Check.UNCLEAR


def test_a_page_still_loading_shows_only_its_title_and_says_nothing():
    # What a read sees while a script in the next page's head still loads.
    loading = Page(url="http://shop.test/login", title="Sign in")
    assert check_login(loading) == Check.UNCLEAR
    assert check_code(loading) == Check.UNCLEAR
    assert payment_outcome(loading) == PaymentOutcome.UNKNOWN


def test_blank_text_is_not_readable():
    assert check_login(Page(url="http://shop.test/", title="Shop", text=" \n ")) == Check.UNCLEAR


def test_the_form_still_there_with_an_error_did_not_work():
    page = Page(url="http://shop.test/login", fields=SIGN_IN_FORM, notices=WRONG, login_form=True)
    assert check_login(page) == Check.DID_NOT_WORK


def test_the_form_still_there_without_an_error_is_unclear():
    page = Page(url="http://shop.test/login", fields=SIGN_IN_FORM, login_form=True)
    assert check_login(page) == Check.UNCLEAR


def test_an_error_on_a_page_past_the_form_is_unclear():
    page = Page(url="http://shop.test/home", text="Home", notices=WRONG)
    assert check_login(page) == Check.UNCLEAR


def test_a_payment_is_paid_only_when_the_site_says_so_and_the_card_form_is_gone():
    thanks = Page(url="https://shop.test/done", text="Thanks", notices=(Notice("success", "Paid"),))
    declined = Page(
        url="https://shop.test/pay",
        controls=(PageControl("e3", "submit", "Pay"),),
        notices=(Notice("error", "Declined"),),
        payment_form=True,
    )
    assert payment_outcome(thanks) == PaymentOutcome.PAID
    assert payment_outcome(declined) == PaymentOutcome.DECLINED
    assert payment_outcome(Page(url="https://shop.test/x", text="?")) == PaymentOutcome.UNKNOWN


def test_a_sign_out_control_says_signed_in_even_with_a_search_box_named_password():
    page = Page(url="https://app.test/home", text="Dashboard", sign_out=True, login_form=True)
    assert check_login(page) == Check.WORKED


def test_a_field_marked_invalid_says_it_did_not_work():
    invalid = (PageField("e1", "email"), PageField("e2", "password", private_kind="password",
                                                   invalid=True))  # fmt: skip
    page = Page(url="https://app.test/login", text="Sign in", fields=invalid, login_form=True)
    assert check_login(page) == Check.DID_NOT_WORK


def test_the_same_step_shown_again_with_a_message_did_not_work():
    again = Page(
        url="https://app.test/login",
        text="Sign in",
        fields=SIGN_IN_FORM,
        notices=(Notice("info", "Please check your details and try again."),),
        login_form=True,
    )
    assert check_login(again) == Check.DID_NOT_WORK


def test_the_code_step_after_the_password_means_the_password_got_through():
    code_step = Page(
        url="https://app.test/login/two-factor",
        text="Enter the code from your app",
        fields=(PageField("f0.e4", "otp", private_kind="one_time_code", boxes=6),),
        code_form=True,
    )
    assert check_login(code_step) == Check.WORKED
    assert check_code(code_step) == Check.UNCLEAR


def test_a_two_step_sign_ins_first_page_went_through_when_the_password_is_asked_for():
    password_page = Page(
        url="https://app.test/login/password",
        text="Welcome back",
        fields=(PageField("e2", "password", "password", private_kind="password", masked=True),),
        login_form=True,
    )
    unknown = Page(
        url="https://app.test/login",
        text="Sign in",
        fields=(PageField("e1", "email", invalid=True),),
        notices=(Notice("error", "No account with that email"),),
    )
    assert check_username_step(password_page) == Check.WORKED
    assert check_username_step(unknown) == Check.DID_NOT_WORK
    assert check_username_step(Page(url="https://app.test/x", title="x")) == Check.UNCLEAR


def test_a_bank_asking_to_confirm_is_seen_in_the_page_a_frame_or_a_popup():
    in_page = Page(url="https://shop.test/pay", text="Confirm the payment in your banking app")
    in_frame = Page(
        url="https://shop.test/pay",
        text="Paying…",
        frames=(Frame("f0"), Frame("f1", "https://acs.bank.test/challenge", title="3-D Secure")),
    )
    popup = Page(
        url="https://shop.test/pay",
        text="Paying…",
        pages=(OpenPage("p0", current=True), OpenPage("p1", opener_page_id="p0")),
    )
    for page in (in_page, in_frame, popup):
        assert asks_bank_confirmation(page)
    assert not asks_bank_confirmation(Page(url="https://shop.test/pay", text="Pay now"))


def test_a_thank_you_page_without_the_card_form_is_paid():
    thanks = Page(url="https://shop.test/done", headings=("Thank you for your order",), text="#42")
    not_paid = Page(url="https://shop.test/done", text="Your order is not paid yet")
    assert payment_outcome(thanks) == PaymentOutcome.PAID
    assert payment_outcome(not_paid) == PaymentOutcome.UNKNOWN
