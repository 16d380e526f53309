"""The newcomer's path, from the page: sign in, run the demo purchase, give
the one-time code in the private form, say yes on the payment card, and see
the order confirmed. The demo shop saw one sign-in and one payment; the code
typed in the form is in no page's HTML and in no log."""

from playwright.async_api import expect

from nodtest.leaks import shows

from .shop import one_time_code, shop_counts

PURCHASE = "Buy the desk lamp at the demo shop"


async def test_a_person_buys_at_the_demo_shop_from_the_page(nod, ada):
    page = ada.page
    before = shop_counts(nod.urls["shop"])
    await ada.shot("tasks")
    task_id = await ada.start_task(PURCHASE)
    pages_html = [await page.content()]

    code_box = page.get_by_label("One-time code")
    await expect(code_box).to_be_visible(timeout=60_000)
    await ada.shot("private-form")
    code = await one_time_code()
    await code_box.fill(code)
    await page.get_by_role("button", name="Give it to nod, once").click()

    card = page.locator(".decision", has=page.get_by_role("heading", name="Pay this?"))
    await expect(card).to_be_visible(timeout=60_000)
    await expect(card).to_contain_text("25.00 EUR")
    await expect(card).to_contain_text("4242")
    pages_html.append(await page.content())
    await ada.shot("payment-card")
    await card.get_by_role("button", name="Yes, pay").click()
    # The step's line says so. The card itself may already have given way
    # to what nod needs next (the security code), when the live panel comes
    # before the answer to the click.
    pay_line = page.locator("#timeline .line", has_text="Asked you to pay 25.00 EUR")
    await expect(pay_line).to_contain_text("You said yes", timeout=60_000)

    # The shop asks for the card's security code: typed once, never stored.
    security_box = page.get_by_label("Card security code")
    await expect(security_box).to_be_visible(timeout=60_000)
    await ada.shot("security-code-form")
    await security_box.fill("123")
    await page.get_by_role("button", name="Give it to nod, once").click()

    await expect(page.locator(".state-line .badge")).to_have_text("Done", timeout=90_000)
    await expect(page.locator(".state-line .message")).to_contain_text("paid")
    await ada.shot("task-done")
    # The timeline says each step in words: the code typed, the card paid.
    code_line = page.locator("#timeline .line", has_text="Typed the one-time code you gave")
    await expect(code_line.locator(".badge", has_text="Worked")).to_be_visible()
    await expect(page.locator("#timeline .line", has_text="Paid 25.00 EUR")).to_be_visible()
    pages_html.append(await page.content())
    await page.reload()
    pages_html.append(await page.content())

    after = shop_counts(nod.urls["shop"])
    assert after["login"] - before.get("login", 0) == 1
    assert after["checkout"] - before.get("checkout", 0) == 1
    assert "4242424242424242" not in "".join(pages_html)
    assert all(code not in html for html in pages_html)
    assert not shows(code, nod.log_text())
    assert f"/tasks/{task_id}" in page.url
