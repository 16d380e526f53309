"""When nod waits for the person, a task page in a background tab says so:
its title starts "Needs you", and (once the person allowed notifications)
a browser notification says "nod needs you". Chromium here has no desktop
to show one on, so the page's Notification is a recorder, and its tab is
made to read as hidden."""

import re

from playwright.async_api import expect

from .shop import one_time_code

PURCHASE = "Buy the desk lamp at the demo shop"
# Before any of the page's scripts: a background tab whose notifications
# are allowed and recorded (through a binding that outlives each reload).
BACKGROUND_TAB = """
Object.defineProperty(document, "hidden", { get: () => true });
window.Notification = class {
  constructor(title, options) { window.__notified(title, (options || {}).body || ""); }
  static get permission() { return "granted"; }
  static requestPermission() { return Promise.resolve("granted"); }
};
"""
NEEDS_YOU = re.compile(r"^Needs you · ")


async def test_a_background_tab_says_when_nod_needs_you(nod, ada):
    page = await ada.page.context.new_page()
    notified: list[tuple[str, str]] = []
    await page.expose_binding(
        "__notified", lambda _source, title, body: notified.append((title, body))
    )
    await page.add_init_script(BACKGROUND_TAB)
    try:
        await ada.start_task(PURCHASE, page=page)

        code_box = page.get_by_label("One-time code")
        await expect(code_box).to_be_visible(timeout=60_000)
        await expect(page).to_have_title(NEEDS_YOU)
        await code_box.fill(await one_time_code())
        await page.get_by_role("button", name="Give it to nod, once").click()
        card = page.locator(".decision", has=page.get_by_role("heading", name="Pay this?"))
        await expect(card).to_be_visible(timeout=60_000)
        await expect(page).to_have_title(NEEDS_YOU)
        await card.get_by_role("button", name="Yes, pay").click()
        security_box = page.get_by_label("Card security code")
        await expect(security_box).to_be_visible(timeout=60_000)
        await security_box.fill("123")
        await page.get_by_role("button", name="Give it to nod, once").click()
        await expect(page.locator(".state-line .badge")).to_have_text("Done", timeout=90_000)

        # Done: the title is the page's own again.
        await expect(page).not_to_have_title(NEEDS_YOU)
        # Each wait that arrived while the page was open was told once;
        # one shown with the page (after a reload) is in the title only.
        assert notified, "no notification while nod waited"
        assert all(title == "nod needs you" for title, _ in notified)
        assert len(notified) <= 3
        assert all("123" not in body and "4242" not in body for _, body in notified)
    finally:
        await page.close()
