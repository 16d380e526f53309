"""History and Decisions: a task's claims show in the history with their
states, filtered by state; an app action waiting for the person is on the
Decisions page, can be answered there, and then shows in the history."""

import re

from playwright.async_api import expect

from .shop import one_time_code

SIGN_IN = "Sign in to the demo shop"
NOTE = "Send a note to the demo app: hello from nod"


async def test_a_tasks_claims_show_in_the_history_by_state(ada):
    page = ada.page
    task_id = await ada.start_task(SIGN_IN)
    code_box = page.get_by_label("One-time code")
    await expect(code_box).to_be_visible(timeout=60_000)
    await code_box.fill(await one_time_code())
    await page.get_by_role("button", name="Give it to nod, once").click()
    await expect(page.locator(".state-line .badge")).to_have_text("Done", timeout=90_000)

    await page.goto("/history")
    entries = page.get_by_role("region", name="Private entries")
    rows = entries.locator("li", has=page.locator(f"a[href='/tasks/{task_id}']"))
    # The saved login and the one-time code, each entered once.
    await expect(rows).to_have_count(2)
    for row in await rows.all():
        await expect(row.locator(".badge")).to_have_text("Submitted")
    await expect(rows.filter(has_text="saved login")).to_have_count(1)
    await expect(rows.filter(has_text="one-time code")).to_have_count(1)
    await ada.shot("history")

    filters = entries.get_by_role("navigation", name="Filter private entries by state")
    await filters.get_by_role("link", name="Uncertain").click()
    await expect(page).to_have_url(re.compile(r"claims=uncertain"))
    await expect(filters.get_by_role("link", name="Uncertain")).to_have_attribute(
        "aria-current", "page"
    )
    await expect(rows).to_have_count(0)
    for badge in await entries.locator(".badge").all():
        await expect(badge).to_have_text("Uncertain")

    await filters.get_by_role("link", name="Submitted").click()
    await expect(rows).to_have_count(2)
    await rows.first.get_by_role("link").click()
    await expect(page).to_have_url(re.compile(f"/tasks/{task_id}$"))


async def test_a_waiting_decision_is_answered_from_the_decisions_page(ada):
    page = ada.page
    task_id = await ada.start_task(NOTE)
    card = page.locator(".decision", has=page.get_by_role("heading", name="Run this app action?"))
    await expect(card).to_be_visible(timeout=60_000)

    await page.get_by_role("navigation", name="Main").get_by_role("link", name="Decisions").click()
    waiting = page.locator(f".decision-waiting[data-task='{task_id}']")
    await expect(waiting).to_have_count(1)
    await expect(waiting.get_by_role("link", name=NOTE)).to_have_attribute(
        "href", f"/tasks/{task_id}"
    )
    await expect(waiting).to_contain_text("Demo app")
    await expect(waiting).to_contain_text("hello from nod")
    await ada.shot("decisions")
    await waiting.get_by_role("button", name="No").click()
    await expect(waiting).to_contain_text("You said no")

    await page.reload()
    await expect(waiting).to_have_count(0)
    await page.goto("/history?approvals=rejected")
    actions = page.get_by_role("region", name="App actions")
    row = actions.locator("li", has=page.locator(f"a[href='/tasks/{task_id}']"))
    await expect(row).to_have_count(1)
    await expect(row.locator(".badge").first).to_have_text("You said no")
    await ada.shot("history-rejected")
