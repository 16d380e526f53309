"""Connected apps from the page: a webhook and an email account connected
and disconnected; an address nod must not reach is refused, readably, and
nothing is connected. Credentials typed are in no page and no log."""

import re
import uuid

from playwright.async_api import expect


async def test_a_person_connects_and_disconnects_accounts(nod, ada):
    page = ada.page
    suffix = uuid.uuid4().hex[:6]
    token, mail_password = f"tok-{uuid.uuid4().hex}", f"mail-{uuid.uuid4().hex}"
    hook_label, mail_label = f"Hook {suffix}", f"Mail {suffix}"
    seen: list[str] = []

    await page.goto("/apps")
    await expect(page.locator(".accounts li", has_text="Demo app")).to_contain_text("Webhook")
    webhook = page.get_by_role("region", name="Connect a webhook")
    await webhook.get_by_label("Label (optional)").fill(hook_label)
    await webhook.get_by_label("URL").fill(f"{nod.urls['app']}/hooks/{suffix}")
    await webhook.get_by_label("Token (optional, sent as a bearer token)").fill(token)
    await webhook.get_by_role("button", name="Connect webhook").click()
    await expect(page.get_by_role("status")).to_contain_text("Connected")
    hook = page.locator(".accounts li", has_text=hook_label)
    await expect(hook).to_contain_text("Webhook")
    await expect(hook).to_contain_text("token saved")
    # Its path may hold a secret: only the site is shown.
    await expect(hook).not_to_contain_text(f"/hooks/{suffix}")
    seen.append(await page.content())

    mail = page.get_by_role("region", name="Connect an email account (SMTP)")
    await mail.get_by_label("Label (optional)").fill(mail_label)
    await mail.get_by_label("Mail server").fill("127.0.0.1")
    await mail.get_by_label("Port").fill("2525")
    await mail.get_by_label("From address").fill("ada@example.com")
    await mail.get_by_label("Username").fill("ada")
    await mail.get_by_label("Password").fill(mail_password)
    await mail.get_by_role("button", name="Connect email account").click()
    await expect(page.get_by_role("status")).to_contain_text("Connected")
    await expect(page.locator(".accounts li", has_text=mail_label)).to_contain_text(
        "127.0.0.1:2525, from ada@example.com"
    )
    seen.append(await page.content())
    await ada.shot("apps")

    for label in (hook_label, mail_label):
        account = page.locator(".accounts li", has_text=label)
        await account.locator("summary", has_text="Disconnect").click()
        await account.get_by_role("button", name=f"Yes, disconnect “{label}”").click()
        await expect(page.get_by_role("status")).to_contain_text("Disconnected")
        await expect(page.locator(".accounts li", has_text=label)).to_have_count(0)
        seen.append(await page.content())
    await expect(page.locator(".accounts li", has_text="Demo app")).to_have_count(1)

    html = "".join(seen)
    assert token not in html and mail_password not in html
    logs = nod.log_text()
    assert token not in logs and mail_password not in logs


async def test_an_internal_address_is_refused_readably(ada):
    page = ada.page
    ada.expected_console.append(re.compile(r"status of 400"))
    label = f"Metadata {uuid.uuid4().hex[:6]}"
    await page.goto("/apps")
    before = await page.locator(".accounts li").count()
    webhook = page.get_by_role("region", name="Connect a webhook")
    for url, kind in (
        ("http://169.254.169.254/latest/meta-data/", "a link-local address"),
        ("http://10.0.0.1/hook", "a private address"),
    ):
        await webhook.get_by_label("Label (optional)").fill(label)
        await webhook.get_by_label("URL").fill(url)
        async with page.expect_response(lambda r: r.request.method == "POST") as answer:
            await webhook.get_by_role("button", name="Connect webhook").click()
        assert (await answer.value).status == 400
        refusal = webhook.get_by_role("alert")
        await expect(refusal).to_contain_text("URL must reach a public address")
        await expect(refusal).to_contain_text(kind)
        await expect(refusal).to_contain_text("Nothing was saved")
        await expect(webhook.get_by_label("Label (optional)")).to_have_value(label)
        await ada.shot("apps-refused")

    await page.goto("/apps")
    await expect(page.locator(".accounts li")).to_have_count(before)
    await expect(page.locator(".accounts li", has_text=label)).to_have_count(0)
