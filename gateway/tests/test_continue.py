"""Continue on an ended task: a new run starts from the page (the page
shows it running again and its run count) and nothing already done is done
again — the demo app gets no second note and the demo shop no second
sign-in or code."""

from playwright.async_api import expect

from nodtest.leaks import shows

from .outside import NOTE_TASK, SIGN_IN_TASK, SeenPages, app_received, counts_since
from .people import ENDED
from .shop import one_time_code, shop_counts


async def _continue(ada, text: str = "") -> None:
    page = ada.page
    if text:
        await page.get_by_label("Tell nod what you found, then continue").fill(text)
    await page.get_by_role("button", name="Continue").click()
    await expect(page.locator(".run-count")).to_have_text("Run 2", timeout=60_000)
    await expect(page.locator(".state-line .badge")).to_have_text(ENDED, timeout=60_000)


async def test_continuing_the_done_note_task_sends_nothing_again(nod, ada):
    app = nod.urls["app"]
    page = ada.page
    await ada.start_task(NOTE_TASK)
    await page.get_by_role("button", name="Yes, run it").click(timeout=60_000)
    await expect(page.locator(".state-line .badge")).to_have_text("Done", timeout=60_000)
    await ada.shot("note-done")
    sent = len(app_received(app))

    await _continue(ada, "Anything left to do?")
    await expect(page.locator("#timeline")).to_contain_text("Anything left to do?")
    await expect(page.locator(".state-line .badge")).to_have_text("Done")
    await expect(page.locator(".state-line .message")).to_have_text(
        "Nothing more to do. The note was sent to Demo app."
    )
    await ada.shot("note-continued")
    await page.reload()
    await expect(page.locator(".run-count")).to_have_text("Run 2")
    await expect(page.get_by_role("button", name="Yes, run it")).to_have_count(0)
    assert len(app_received(app)) == sent


async def test_continuing_the_done_sign_in_enters_nothing_again(nod, ada):
    seen = SeenPages()
    shop = nod.urls["shop"]
    page = ada.page
    await ada.start_task(SIGN_IN_TASK)
    code_box = page.get_by_label("One-time code")
    await expect(code_box).to_be_visible(timeout=60_000)
    code = await one_time_code()
    await code_box.fill(code)
    await page.get_by_role("button", name="Give it to nod, once").click()
    await expect(page.locator(".state-line .badge")).to_have_text("Done", timeout=60_000)
    await seen.keep(page)
    await ada.shot("sign-in-done")
    before = shop_counts(shop)

    await _continue(ada)
    await expect(page.locator(".state-line .message")).to_have_text(
        "Nothing more to do. Signed in to the demo shop."
    )
    await ada.shot("sign-in-continued")
    await page.reload()
    await seen.keep(page)
    assert counts_since(shop, before) == {"login": 0, "otp": 0, "checkout": 0}
    seen.assert_absent(code)
    assert not shows(code, nod.log_text())
