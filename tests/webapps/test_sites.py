"""Real open-source web applications (libs/nodtest/src/nodtest/webapps),
used the way a person would with plain Playwright, and checked against what
each site itself recorded. docs/REAL_SITES.md describes their pages; the
assertions on errors and signed-in marks keep those notes true."""

import asyncio
from urllib.parse import urlparse

from playwright.async_api import Page, expect


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
    assert site.site.requests("POST", "/account/login/?next=/admin/") == [200, 302]


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

    # django-otp then refuses even the right code for a while (1 s after one failure).
    await twofactor_code_step(page, site.account.code())
    await expect(error).to_contain_text("Verification temporarily disabled")
    assert site.last_login() is None

    await asyncio.sleep(1.2)
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
