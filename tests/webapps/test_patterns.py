"""nodtest.patterns' pages, used the way a person would with plain
Playwright: each pattern works, and each page counted what it received."""

from urllib.parse import urlparse

import pyotp
import pytest
from playwright.async_api import Page, expect
from playwright.async_api import TimeoutError as PlaywrightTimeout

from nodtest.addresses import OTHER_SITE_HOST
from nodtest.claims import CANARY_CARD

SIGNED_IN = "Signed in as ada"


async def expect_signed_in(page: Page) -> None:
    await expect(page.get_by_text(SIGNED_IN)).to_be_visible()
    await expect(page.get_by_role("button", name="Sign out")).to_be_visible()
    assert urlparse(page.url).path == "/account"


async def pay_in_hosted_fields(page: Page, sites, number: str) -> None:
    await page.goto(sites.url + "/checkout")
    card = page.frame_locator("#card-frame")
    await card.get_by_label("Card number").fill(number)
    await card.get_by_label("Expiry").fill("12 / 34")
    await card.get_by_label("CVC").fill("123")
    await card.get_by_role("button", name="Pay €25.00").click()


async def test_hosted_card_fields_pay_from_another_origin(page, pattern_sites):
    sites = pattern_sites
    await pay_in_hosted_fields(page, sites, CANARY_CARD)

    await expect(page.get_by_role("status")).to_have_text(
        "Payment accepted. Thank you for your order."
    )
    assert await page.locator("input[autocomplete=cc-number]").count() == 0  # not in the page
    (frame,) = [f for f in page.frames if f.url.startswith(sites.card_url)]
    assert urlparse(frame.url).hostname == OTHER_SITE_HOST != urlparse(page.url).hostname
    assert sites.count("hosted_card") == 1
    assert sites.outcome("hosted_card", "paid") == 1
    assert sites.state.last["hosted_card"]["cardnumber"]["length"] == 16


async def test_hosted_card_fields_decline(page, pattern_sites):
    await pay_in_hosted_fields(page, pattern_sites, "4000000000000002")

    await expect(page.get_by_role("status")).to_have_text("Your card was declined.")
    assert pattern_sites.outcome("hosted_card", "declined") == 1


async def test_six_box_code_is_typed_as_one_value(page, pattern_sites):
    sites = pattern_sites
    await page.goto(sites.url + "/code")
    first = page.get_by_label("Digit 1 of 6")
    await expect(first).to_be_focused()
    code = pyotp.TOTP(sites.state.totp_seed).now()

    await page.keyboard.type(code)  # the focus moves on by itself

    for n, digit in enumerate(code, start=1):
        await expect(page.get_by_label(f"Digit {n} of 6")).to_have_value(digit)
    await page.get_by_role("button", name="Verify").click()
    await expect_signed_in(page)
    assert sites.count("six_box_code") == 1
    assert sites.state.last["six_box_code"]["code"]["length"] == 6


async def test_six_box_code_takes_a_paste(page, pattern_sites):
    sites = pattern_sites
    await page.goto(sites.url + "/code")
    code = pyotp.TOTP(sites.state.totp_seed).now()

    await page.get_by_label("Digit 1 of 6").evaluate(
        """(box, code) => {
            const data = new DataTransfer();
            data.setData('text', code);
            box.dispatchEvent(new ClipboardEvent('paste', {clipboardData: data, bubbles: true}));
        }""",
        code,
    )

    await expect(page.get_by_label("Digit 6 of 6")).to_be_focused()
    await page.keyboard.press("Enter")
    await expect_signed_in(page)
    assert sites.outcome("six_box_code", "accepted") == 1


async def test_six_box_code_refuses_a_wrong_code(page, pattern_sites):
    sites = pattern_sites
    await page.goto(sites.url + "/code")
    right = pyotp.TOTP(sites.state.totp_seed).now()
    await page.keyboard.type("000000" if right != "000000" else "111111")
    await page.get_by_role("button", name="Verify").click()

    await expect(page.get_by_role("alert")).to_have_text("That code is not right. Try again.")
    assert sites.outcome("six_box_code", "refused") == 1


async def test_cookie_banner_covers_the_form_until_dismissed(page, pattern_sites):
    sites = pattern_sites
    await page.goto(sites.url + "/banner-login")
    banner = page.get_by_role("dialog", name="We value your privacy")
    await expect(banner).to_be_visible()
    with pytest.raises(PlaywrightTimeout):
        await page.get_by_label("Username").click(trial=True, timeout=1000)

    await banner.get_by_role("button", name="Reject all").click()

    await expect(banner).to_have_count(0)
    await page.get_by_label("Username").fill(sites.state.username)
    await page.get_by_label("Password").fill(sites.state.password)
    await page.get_by_role("button", name="Sign in").click()
    await expect_signed_in(page)
    assert sites.count("banner_login") == 1


async def test_shadow_root_sign_in_with_a_div_button(page, pattern_sites):
    sites = pattern_sites
    await page.goto(sites.url + "/shadow-login")
    host = page.locator("nod-sign-in")
    assert await host.evaluate("el => el.shadowRoot.mode") == "open"
    assert await page.evaluate("document.querySelectorAll('input').length") == 0

    await page.get_by_label("Username").fill(sites.state.username)
    await page.get_by_label("Password").fill("not-the-password")
    await page.get_by_role("button", name="Sign in").click()
    await expect(page.get_by_role("alert")).to_have_text("Wrong username or password.")

    await page.get_by_label("Password").fill(sites.state.password)
    await page.get_by_role("button", name="Sign in").press("Enter")
    await expect_signed_in(page)
    assert sites.count("shadow_login") == 2
    assert sites.outcome("shadow_login", "signed_in") == 1


async def test_bank_confirmation_in_a_popup(page, pattern_sites):
    sites = pattern_sites
    await page.goto(sites.url + "/pay-3ds")
    await page.get_by_label("Card number").fill(CANARY_CARD)
    await page.get_by_label("Expiry").fill("12/29")
    await page.get_by_label("CVC").fill("737")
    async with page.expect_popup() as opened:
        await page.get_by_role("button", name="Pay €25.00").click()
    popup = await opened.value
    await expect(popup.get_by_role("heading", name="Confirm with your bank")).to_be_visible()
    await expect(page.get_by_role("status")).to_have_text("Waiting for your bank…")

    async with popup.expect_event("close"):
        await popup.get_by_role("button", name="Confirm").click()

    await expect(page.get_by_role("status")).to_have_text(
        "Payment confirmed. Thank you for your order."
    )
    assert sites.count("card_3ds") == 1 and sites.outcome("card_3ds", "challenged") == 1
    assert sites.state.last["card_3ds"]["cardnumber"]["length"] == len(CANARY_CARD)
    assert sites.count("bank_confirm") == 1
    assert sites.outcome("bank_confirm", "confirmed") == 1
    # The verdict replaces the card form.
    await expect(page.get_by_label("Card number")).to_have_count(0)


async def test_two_step_sign_in(page, pattern_sites):
    sites = pattern_sites
    await page.goto(sites.url + "/two-step")
    await page.get_by_label("Username").fill(sites.state.username)
    await page.get_by_role("button", name="Next").click()

    await expect(page.get_by_role("heading", name="Enter your password")).to_be_visible()
    assert urlparse(page.url).path == "/two-step/password"
    await page.get_by_label("Password").fill("not-the-password")
    await page.get_by_role("button", name="Sign in").click()
    await expect(page.get_by_role("alert")).to_have_text("Wrong password. Try again.")

    await page.get_by_label("Password").fill(sites.state.password)
    await page.get_by_role("button", name="Sign in").click()
    await expect_signed_in(page)
    assert (sites.count("two_step_username"), sites.count("two_step_password")) == (1, 2)


async def test_two_step_sign_in_refuses_an_unknown_username(page, pattern_sites):
    sites = pattern_sites
    await page.goto(sites.url + "/two-step")
    await page.get_by_label("Username").fill("nobody")
    await page.get_by_role("button", name="Next").click()

    await expect(page.get_by_role("alert")).to_have_text("We could not find that account.")
    await expect(page.get_by_label("Password")).to_have_count(0)
    assert sites.outcome("two_step_username", "unknown") == 1


async def test_counts_are_served_without_values(page, pattern_sites):
    sites = pattern_sites
    await pay_in_hosted_fields(page, sites, CANARY_CARD)
    await expect(page.get_by_role("status")).to_contain_text("Payment accepted")

    reply = await page.request.get(sites.url + "/_control/counts")
    counts = await reply.json()
    assert counts["counts"]["hosted_card"] == 1
    assert counts["outcomes"] == {"hosted_card:paid": 1}
    received = counts["last"]["hosted_card"]
    assert {name: set(kept) for name, kept in received.items()} == {
        name: {"length", "sha256"} for name in ("parent", "cardnumber", "exp-date", "cvc")
    }
    assert CANARY_CARD not in await reply.text()
