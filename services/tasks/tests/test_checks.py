"""The page check after an entry, as plain rules: only the site's own page
can say an entry worked."""

from nod_tasks.domain.checks import Check, check_login


def test_the_form_gone_from_the_sites_page_means_it_worked():
    assert check_login({"url": "http://shop.test/account"}) == Check.WORKED


def test_a_page_that_isnt_the_sites_can_not_say_it_worked():
    for url in ("chrome-error://chromewebdata/", "about:blank", ""):
        assert check_login({"url": url}) == Check.UNCLEAR


def test_the_form_still_there_with_an_error_did_not_work():
    page = {"url": "http://shop.test/login", "loginFormPresent": True,
            "notices": [{"kind": "error", "text": "Wrong username or password"}]}  # fmt: skip
    assert check_login(page) == Check.DID_NOT_WORK
