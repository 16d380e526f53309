"""Real open-source web applications (libs/nodtest/src/nodtest/webapps),
used the way a person would with plain Playwright, and checked against what
each site itself recorded. docs/REAL_SITES.md describes their pages; the
assertions on errors and signed-in marks keep those notes true."""

import asyncio
from decimal import Decimal
from urllib.parse import urlparse

from playwright.async_api import Page, expect

from nodtest.claims import CANARY_CARD
from nodtest.leaks import shows
from nodtest.webapps.oscar_shop import DECLINED_CARD


def path_of(page: Page) -> str:
    return urlparse(page.url).path


# --- Django admin behind django-two-factor-auth (password, then TOTP) ------


async def twofactor_password_step(page: Page, site, password: str) -> None:
    await page.goto(site.signed_in_url)  # the admin sends a stranger to the wizard
    await page.fill("input[name=auth-username]", site.account.username)
    await page.fill("input[name=auth-password]", password)
    await page.get_by_role("button", name="Next").click()


async def twofactor_code_step(page: Page, code: str) -> None:
    await page.fill("input[name=token-otp_token]", code)
    await page.get_by_role("button", name="Next").click()


async def test_twofactor_admin_signs_in_with_password_and_totp_code(page, twofactor_admin_site):
    site = twofactor_admin_site
    await twofactor_password_step(page, site, site.account.password)
    code_field = page.locator("input[name=token-otp_token]")
    await expect(code_field).to_have_attribute("autocomplete", "one-time-code")
    assert path_of(page) == "/account/login/"  # same URL: the step is in a hidden input
    assert site.last_login() is None

    await twofactor_code_step(page, site.account.code())

    await expect(page.get_by_role("heading", name="Site administration")).to_be_visible()
    await expect(page.get_by_role("button", name="Log out")).to_be_visible()
    assert path_of(page) == "/admin/"
    assert site.last_login() is not None
    assert site.totp_device().last_t > 0
    assert site.totp_device().throttling_failure_count == 0
    assert site.server.requests("POST", "/account/login/?next=/admin/") == [200, 302]
    assert site.account.password not in site.server.log_text()


async def test_twofactor_admin_refuses_a_wrong_password(page, twofactor_admin_site):
    site = twofactor_admin_site
    await twofactor_password_step(page, site, "not-the-password")

    error = page.locator("ul.errorlist.nonfield")
    await expect(error).to_contain_text("Please enter a correct username and password")
    await expect(page.locator("input[name=auth-password]")).to_be_visible()
    assert await page.locator("input[name=token-otp_token]").count() == 0
    assert await page.get_by_role("alert").count() == 0  # the error is plain text
    assert site.last_login() is None
    assert site.totp_device().last_t == -1


async def test_twofactor_admin_refuses_a_wrong_code_then_throttles(page, twofactor_admin_site):
    site = twofactor_admin_site
    await twofactor_password_step(page, site, site.account.password)
    await twofactor_code_step(page, "000000" if site.account.code() != "000000" else "111111")

    error = page.locator("ul.errorlist.nonfield")
    await expect(error).to_contain_text("Invalid token")
    assert site.totp_device().throttling_failure_count == 1
    assert site.last_login() is None

    # django-otp then refuses even the right code for a while (the site's
    # OTP_TOTP_THROTTLE_FACTOR, 5 s, after one failure).
    await twofactor_code_step(page, site.account.code())
    await expect(error).to_contain_text("Verification temporarily disabled")
    assert site.last_login() is None

    await asyncio.sleep(5.2)
    await twofactor_code_step(page, site.account.code())
    await expect(page.get_by_role("heading", name="Site administration")).to_be_visible()
    assert site.last_login() is not None


async def test_twofactor_admin_accepts_a_code_once(page, twofactor_admin_site):
    site = twofactor_admin_site
    code = site.account.code()
    await twofactor_password_step(page, site, site.account.password)
    await twofactor_code_step(page, code)
    await expect(page.get_by_role("heading", name="Site administration")).to_be_visible()
    first_login = site.last_login()
    await page.get_by_role("button", name="Log out").click()

    await twofactor_password_step(page, site, site.account.password)
    await twofactor_code_step(page, code)

    await expect(page.locator("ul.errorlist.nonfield")).to_contain_text("Invalid token")
    assert site.last_login() == first_login


# --- django-oscar: a shop's checkout with a card step ----------------------


async def oscar_sign_in(page: Page, shop, password: str) -> None:
    await page.goto(shop.login_url)
    login = page.locator("form#login_form")
    await login.locator("input[name=login-username]").fill(shop.customer.email)
    await login.locator("input[name=login-password]").fill(password)
    await login.get_by_role("button", name="Log In").click()


async def oscar_to_card_step(page: Page, shop) -> None:
    """Signed in, one book in the basket, shipping address given: the
    checkout's payment details page, where the card goes."""
    await oscar_sign_in(page, shop, shop.customer.password)
    await expect(page.get_by_role("link", name="Logout")).to_be_visible()
    await page.goto(shop.product_url)
    await page.locator("form#add_to_basket_form").get_by_role("button", name="Add to cart").click()
    await page.goto(shop.url + "/checkout/")
    address = page.locator("form#new_shipping_address")
    for name, value in {
        "first_name": "Grace",
        "last_name": "Hopper",
        "line1": "1 Main Street",
        "line4": "London",
        "postcode": "SW1A 1AA",
    }.items():
        await address.locator(f"[name={name}]").fill(value)
    await address.get_by_role("button", name="Continue").click()
    await expect(page.get_by_role("heading", name="Enter payment details")).to_be_visible()


async def oscar_fill_card(page: Page, number: str) -> None:
    card = page.locator("form#bankcard_form")
    await card.locator("input[name=number]").fill(number)
    await card.locator("select[name=expiry_month_0]").select_option("12")
    await card.locator("select[name=expiry_month_1]").select_option(index=5)
    await card.locator("input[name=ccv]").fill("123")
    await card.get_by_role("button", name="Continue").click()


async def test_oscar_shop_takes_a_card_and_records_one_order(page, oscar_shop_site):
    shop = oscar_shop_site
    await oscar_to_card_step(page, shop)
    number = page.locator("form#bankcard_form input[name=number]")
    await expect(number).to_have_attribute("autocomplete", "off")

    await oscar_fill_card(page, "4111 1111 1111 1111")

    # The preview: no payment yet, the card carried in a hidden copy of the form.
    await expect(page.get_by_role("heading", name="Preview order")).to_be_visible()
    hidden_number = page.locator("form#place_order_form input[name=number]")
    await expect(hidden_number).to_be_hidden()
    assert await hidden_number.input_value() == "4111 1111 1111 1111"  # as typed
    assert shop.orders() == [] and shop.payment_sources() == []

    await page.get_by_role("button", name="Place order").click()

    await expect(page.get_by_role("heading", name="confirmation")).to_contain_text("Order 100001")
    assert path_of(page) == "/checkout/thank-you/"
    (order,) = shop.orders()
    assert (order.number, order.total_incl_tax, order.email) == (
        "100001",
        Decimal("12.00"),
        shop.customer.email,
    )
    (source,) = shop.payment_sources()
    assert (source.order_number, source.amount_debited, source.label) == (
        "100001",
        Decimal("12.00"),
        "card ending 1111",
    )
    assert shop.declined_payments() == 0
    assert CANARY_CARD not in shop.server.log_text().replace(" ", "")


async def test_oscar_shop_declines_a_card_and_records_no_order(page, oscar_shop_site):
    shop = oscar_shop_site
    await oscar_to_card_step(page, shop)
    await oscar_fill_card(page, DECLINED_CARD)
    await page.get_by_role("button", name="Place order").click()

    await expect(page.locator(".alert.alert-danger")).to_have_text("Your card was declined.")
    await expect(page.get_by_role("heading", name="Enter payment details")).to_be_visible()
    assert path_of(page) == "/checkout/preview/"  # the URL of the step that failed
    # The shop puts the declined card back in its form, every digit.
    assert len(await page.locator("form#bankcard_form input[name=number]").input_value()) == 16
    assert shop.orders() == [] and shop.payment_sources() == []
    assert shop.declined_payments() == 1


async def test_oscar_shop_marks_an_invalid_card_number(page, oscar_shop_site):
    shop = oscar_shop_site
    await oscar_to_card_step(page, shop)
    await oscar_fill_card(page, "4111111111111112")  # fails the Luhn check

    number = page.locator("form#bankcard_form input[name=number]")
    await expect(number).to_have_attribute("aria-invalid", "true")
    await expect(page.locator("form#bankcard_form .error-block")).to_contain_text(
        "Please enter a valid credit card number."
    )
    assert shop.orders() == [] and shop.declined_payments() == 0


async def test_oscar_shop_refuses_a_wrong_password(page, oscar_shop_site):
    shop = oscar_shop_site
    await oscar_sign_in(page, shop, "not-the-password")

    await expect(page.locator("form#login_form .alert.alert-danger").last).to_contain_text(
        "Please enter a correct username and password"
    )
    await expect(page.get_by_role("link", name="Logout")).to_have_count(0)
    assert shop.last_login() is None


# --- django-allauth: an email address on one page, a mailed code on the next


async def allauth_request_code(page: Page, site, email: str) -> None:
    await page.goto(site.login_url)
    await page.get_by_role("link", name="Send me a sign-in code").click()
    await page.fill("input[name=email]", email)
    await page.get_by_role("button", name="Request Code").click()


async def allauth_enter_code(page: Page, code: str) -> None:
    await page.fill("input[name=code]", code)
    await page.get_by_role("button", name="Confirm").click()


async def test_allauth_signs_in_with_an_emailed_code(page, allauth_code_site):
    site = allauth_code_site
    await allauth_request_code(page, site, site.account.email)

    await expect(page.get_by_role("heading", name="Enter Sign-In Code")).to_be_visible()
    await expect(page.locator("input[name=code]")).to_have_attribute(
        "autocomplete", "one-time-code"
    )
    assert path_of(page) == "/accounts/login/code/confirm/"
    (code,) = site.codes_sent()

    await allauth_enter_code(page, code)

    await expect(page.get_by_role("heading", name="Email Addresses")).to_be_visible()
    await expect(page.get_by_role("link", name="Sign Out")).to_be_visible()
    assert path_of(page) == "/accounts/email/"
    assert site.last_login() is not None
    assert len(site.codes_sent()) == 1
    assert not shows(code, site.server.log_text())


async def test_allauth_refuses_wrong_codes_then_spends_the_code(page, allauth_code_site):
    site = allauth_code_site
    await allauth_request_code(page, site, site.account.email)
    (code,) = site.codes_sent()
    wrong = "BBBB-BBBB" if code != "BBBB-BBBB" else "CCCC-CCCC"

    await allauth_enter_code(page, wrong)

    field = page.locator("input[name=code]")
    await expect(field).to_have_attribute("aria-invalid", "true")
    await expect(page.locator("#id_code_error")).to_have_text("Incorrect code.")
    assert site.last_login() is None

    # The third wrong code spends it: the site goes back a step and says why.
    await allauth_enter_code(page, wrong)
    await allauth_enter_code(page, wrong)
    await expect(page.get_by_role("heading", name="Send me a sign-in code")).to_be_visible()
    await expect(page.get_by_text("Too many failed login attempts")).to_be_visible()
    assert site.last_login() is None
    assert len(site.codes_sent()) == 1


async def test_allauth_asks_for_a_code_even_for_an_unknown_address(page, allauth_code_site):
    site = allauth_code_site
    await allauth_request_code(page, site, "nobody@example.com")

    # Moving on to the code step says nothing about the account.
    await expect(page.get_by_role("heading", name="Enter Sign-In Code")).to_be_visible()
    assert site.codes_sent() == []
    assert [(m["to"], "Unknown Account" in m["subject"]) for m in site.mailbox.messages] == [
        (["nobody@example.com"], True)
    ]
