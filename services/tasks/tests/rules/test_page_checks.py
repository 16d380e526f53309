"""The page check after an entry, as plain rules: only the site's own page,
showing something readable, can say an entry worked."""

import pytest

from nod_tasks.domain.checks import Check, PaymentOutcome, check_code, check_login, payment_outcome
from nod_tasks.domain.pages import Notice, Page, PageControl, PageField

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
