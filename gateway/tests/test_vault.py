"""The vault from the page: a saved login and a card added, listed masked,
and deleted. The password and card number typed are in no page's HTML and
in no log, not even in the form shown again after a refusal."""

import re
import uuid

from playwright.async_api import expect

# A Visa test number (passes the Luhn check), not the demo card's.
CARD_NUMBER = "4000056655665556"
NAV_PAGES = ("/tasks", "/decisions", "/vault", "/apps", "/history")


async def test_a_person_saves_and_deletes_a_login_and_a_card(nod, ada):
    page = ada.page
    ada.expected_console.append(re.compile(r"status of 400"))
    suffix = uuid.uuid4().hex[:6]
    password = f"pw-{uuid.uuid4().hex}"
    login_label, card_label = f"Library {suffix}", f"Travel card {suffix}"
    seen: list[str] = []

    await page.goto("/vault")
    # The demo person's seeded items are there, masked.
    await expect(page.locator(".saved-cards li", has_text="Demo card")).to_contain_text("•••• 4242")

    adding = page.get_by_role("region", name="Add a saved login")
    await adding.get_by_label("Label (optional)").fill(login_label)
    await adding.get_by_label("Site address").fill("https://library.example")
    await adding.get_by_label("Username").fill("reader@example.org")
    await adding.get_by_label("Password").fill(password)
    await expect(adding.get_by_label("Password")).to_have_attribute("type", "password")
    await adding.get_by_role("button", name="Save login").click()
    await expect(page.get_by_role("status")).to_contain_text("Login saved")
    login = page.locator(".saved-logins li", has_text=login_label)
    await expect(login).to_contain_text("https://library.example")
    await expect(login).to_contain_text("r•••@example.org")
    await expect(login).to_contain_text("password ••••••••")
    seen.append(await page.content())

    # Refused by the vault (a month 13): the form comes back saying which
    # field, with the card number not filled in again.
    card_form = page.get_by_role("region", name="Add a card")
    await card_form.get_by_label("Label (optional)").fill(card_label)
    await card_form.get_by_label("Card number").fill(CARD_NUMBER)
    await card_form.get_by_label("Expiry (MM/YY)").fill("13/31")
    await card_form.get_by_role("button", name="Save card").click()
    await expect(card_form.get_by_role("alert")).to_contain_text("Expiry must be MM/YY")
    await expect(card_form.get_by_role("alert")).to_contain_text("Nothing was saved")
    await expect(card_form.get_by_label("Label (optional)")).to_have_value(card_label)
    await expect(card_form.get_by_label("Card number")).to_have_value("")
    await expect(page.locator(".saved-cards li", has_text=card_label)).to_have_count(0)
    seen.append(await page.content())
    await ada.shot("vault-card-refused")

    await card_form.get_by_label("Card number").fill(CARD_NUMBER)
    await expect(card_form.get_by_label("Card number")).to_have_attribute("type", "password")
    await card_form.get_by_label("Expiry (MM/YY)").fill("09/31")
    await card_form.get_by_label("Name on the card (optional)").fill("Ada Lovelace")
    await card_form.get_by_role("button", name="Save card").click()
    await expect(page.get_by_role("status")).to_contain_text("Card saved")
    card = page.locator(".saved-cards li", has_text=card_label)
    await expect(card).to_contain_text("•••• 5556")
    await expect(card).to_contain_text("expires 09/31")
    await ada.shot("vault")

    for path in NAV_PAGES:
        await page.goto(path)
        seen.append(await page.content())

    await page.goto("/vault")
    for label, listing in ((login_label, ".saved-logins"), (card_label, ".saved-cards")):
        item = page.locator(f"{listing} li", has_text=label)
        await item.locator("summary", has_text="Delete").click()
        await item.get_by_role("button", name=f"Yes, delete “{label}”").click()
        await expect(page.get_by_role("status")).to_contain_text("Deleted")
        await expect(page.locator(f"{listing} li", has_text=label)).to_have_count(0)
        seen.append(await page.content())
    await expect(page.locator(".saved-logins li", has_text="Demo shop")).to_have_count(1)

    html = "".join(seen)
    assert CARD_NUMBER not in html and password not in html
    logs = nod.log_text()
    assert CARD_NUMBER not in logs and password not in logs


async def test_a_login_lists_the_other_addresses_it_is_for(nod, ada):
    """G13: a saved login goes only to its site and the other addresses the
    person lists for it, one per line; each is checked, and a bad one is
    refused naming its line."""
    page = ada.page
    ada.expected_console.append(re.compile(r"status of 400"))
    label = f"Bank {uuid.uuid4().hex[:6]}"
    await page.goto("/vault")
    adding = page.get_by_role("region", name="Add a saved login")
    await adding.get_by_label("Label (optional)").fill(label)
    await adding.get_by_label("Site address").fill("https://bank.example")
    others = adding.get_by_label("Other addresses of this site")
    await others.fill("https://login.bank.example\nhttps://bank.example/login")
    await adding.get_by_label("Username").fill("saver@example.org")
    await adding.get_by_label("Password").fill(f"pw-{uuid.uuid4().hex}")
    await adding.get_by_role("button", name="Save login").click()
    alert = adding.get_by_role("alert")
    await expect(alert).to_contain_text("Other addresses of this site (line 2)")
    await expect(alert).to_contain_text("origin only")
    await expect(page.locator(".saved-logins li", has_text=label)).to_have_count(0)

    await others.fill("https://login.bank.example\n\n  HTTPS://App.Bank.Example:443  ")
    await adding.get_by_label("Password").fill(f"pw-{uuid.uuid4().hex}")
    await adding.get_by_role("button", name="Save login").click()
    await expect(page.get_by_role("status")).to_contain_text("Login saved")
    login = page.locator(".saved-logins li", has_text=label)
    await expect(login).to_contain_text(
        "also for https://login.bank.example, https://app.bank.example"
    )
    await ada.shot("vault-login-other-addresses")
