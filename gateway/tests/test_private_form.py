"""The private form after Stop: a code submitted from a page that was still
open (a browser without JavaScript, so nothing live took the form away) is
refused with a clear message, nothing is entered at the shop, and the code
is in no page and no log. The live page loses the form as soon as the task
is stopped."""

import re

from playwright.async_api import expect

from nodtest.leaks import shows

from .outside import SIGN_IN_TASK, SeenPages, counts_since, shop_mode
from .shop import one_time_code, shop_counts

# What Chromium logs for a page answered with an error status.
STATUS_409 = re.compile(r"status of 409")


async def test_a_code_given_after_stop_is_refused_and_entered_nowhere(nod, ada):
    seen = SeenPages()
    shop = nod.urls["shop"]
    before = shop_counts(shop)
    page = ada.page
    task_id = await ada.start_task(SIGN_IN_TASK)
    await expect(page.get_by_label("One-time code")).to_be_visible(timeout=60_000)
    await ada.shot("code-form")

    # The same person's other window, without JavaScript: a page that stays as it was.
    stale_context = await ada.chromium.new_context(
        base_url=ada.url,
        storage_state=await ada.context.storage_state(),
        java_script_enabled=False,
    )
    console: list[str] = []
    try:
        stale = await stale_context.new_page()
        stale.on("console", lambda m: m.type == "error" and console.append(m.text))
        await stale.goto(f"/tasks/{task_id}")
        code = await one_time_code()
        await stale.get_by_label("One-time code").fill(code)
        await ada.shot("stale-page-code-typed", stale)

        await page.get_by_role("button", name="Stop this task").click()
        await expect(page.locator(".state-line .badge")).to_have_text("Stopped", timeout=30_000)
        await expect(page.get_by_label("One-time code")).to_have_count(0)
        await expect(page.get_by_role("button", name="Give it to nod, once")).to_have_count(0)
        await ada.shot("stopped-form-gone")
        await seen.keep(page)

        async with stale.expect_response(
            lambda r: r.request.method == "POST" and "/forms/" in r.url
        ) as answer:
            await stale.get_by_role("button", name="Give it to nod, once").click()
        assert (await answer.value).status == 409
        problem = stale.locator(".problem")
        await expect(problem).to_contain_text("stopped")
        await expect(problem).to_contain_text("no longer waits for this form")
        await expect(problem).to_contain_text("Nothing was entered")
        await ada.shot("code-after-stop-refused", stale)
        await seen.keep(stale)

        await stale.goto(f"/tasks/{task_id}")
        await expect(stale.get_by_label("One-time code")).to_have_count(0)
        await seen.keep(stale)
        assert all(STATUS_409.search(text) for text in console), console
    finally:
        await stale_context.close()

    await page.reload()
    await expect(page.locator(".state-line .badge")).to_have_text("Stopped")
    await seen.keep(page)
    assert counts_since(shop, before)["otp"] == 0
    seen.assert_absent(code)
    assert not shows(code, nod.log_text())


async def test_a_password_typed_in_the_login_form_signs_in_once(nod, ada):
    """The saved login's submit went unanswered (the shop dropped it), so
    the page check can't tell and nod won't enter that login again (G6): it
    opens the form, the person types the password, and that is entered
    once. The typed password is in no page and no log."""
    seen = SeenPages()
    shop = nod.urls["shop"]
    page = ada.page
    with shop_mode(shop, "login", "drop"):
        await ada.start_task(SIGN_IN_TASK)
        password_box = page.get_by_role("textbox", name="Password")
        await expect(password_box).to_be_visible(timeout=90_000)
    before = shop_counts(shop)
    # The form says which site the password is for (the page the task read): G13.
    where = page.locator("p", has_text="nod enters it there and nowhere else")
    await expect(where).to_contain_text(f"For {shop.rstrip('/')}")
    await seen.keep(page)
    await ada.shot("login-form")
    await page.get_by_label("Username (optional)").fill("ada@example.com")
    typed = "demo-password-1"
    await password_box.fill(typed)
    await page.get_by_role("button", name="Give it to nod, once").click()

    code_box = page.get_by_label("One-time code")
    await expect(code_box).to_be_visible(timeout=60_000)
    await code_box.fill(await one_time_code())
    await page.get_by_role("button", name="Give it to nod, once").click()
    await expect(page.locator(".state-line .badge")).to_have_text("Done", timeout=60_000)
    await seen.keep(page)
    assert counts_since(shop, before)["login"] == 1
    seen.assert_absent(typed)
    assert not shows(typed, nod.log_text())
