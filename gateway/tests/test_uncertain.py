"""Uncertain items on the task page: an app action whose request the demo
app dropped, and a one-time code whose submit the demo shop held until the
browser service's entry timeout. The
step's line says it may have happened and what that means, and the page
offers "I checked: it happened", "I checked: it didn't happen" and "Try
again (a new request)". What the person found is shown beside the step,
which stays uncertain; a resolution
sends nothing by itself, and nothing is ever resent without the person."""

from playwright.async_api import expect

from nodtest.leaks import shows

from .outside import (
    NOTE_TASK,
    SIGN_IN_TASK,
    SeenPages,
    app_mode,
    app_received,
    counts_since,
    shop_mode,
)
from .people import ENDED
from .shop import one_time_code, shop_counts

MEANS = "This may have reached the website or app. Check there before trying again"
BUTTONS = ("I checked: it happened", "I checked: it didn't happen", "Try again (a new request)")


async def _uncertain_note(nod, ada):
    """The note task with its one request dropped by the app: the step and
    the execution end Uncertain and the task asks the person to check."""
    page = ada.page
    await ada.start_task(NOTE_TASK)
    card = page.locator(".decision", has=page.get_by_role("heading", name="Run this app action?"))
    await expect(card).to_be_visible(timeout=60_000)
    with app_mode(nod.urls["app"], "drop"):
        await card.get_by_role("button", name="Yes, run it").click()
        await _check_offered(page)
    step = page.locator("#timeline .line", has=page.get_by_text("You said yes", exact=True)).last
    await expect(step.locator(".badge", has_text="Uncertain").first).to_be_visible()
    await expect(step.locator(".explain")).to_contain_text(MEANS)
    return step


async def _check_offered(page):
    check = page.locator(".card.wait", has=page.get_by_role("heading", name="Please check"))
    await expect(check).to_be_visible(timeout=60_000)
    await expect(check.locator(".explain")).to_contain_text(MEANS)
    for name in BUTTONS:
        await expect(check.get_by_role("button", name=name)).to_be_visible()
    return check


async def _ended(page) -> None:
    await expect(page.locator(".state-line .badge")).to_have_text(ENDED, timeout=60_000)


async def test_an_uncertain_app_action_checked_as_happened(nod, ada):
    app = nod.urls["app"]
    before = len(app_received(app))
    page = ada.page
    await _uncertain_note(nod, ada)
    await ada.shot("app-action-uncertain")
    assert len(app_received(app)) == before + 1  # it did arrive; the answer was lost

    await page.get_by_role("button", name="I checked: it happened").click()
    resolved = page.locator("#timeline .line", has_text="You checked: it happened.")
    await expect(resolved.first).to_be_visible(timeout=30_000)
    await expect(resolved.first.locator(".badge", has_text="Uncertain").first).to_be_visible()
    await _ended(page)
    await ada.shot("app-action-checked-happened")
    # The step still may have happened and the execution stays Uncertain;
    # the check sent nothing.
    await page.reload()
    line = page.locator("#timeline .line", has_text="You checked: it happened.").last
    await expect(line.locator(".badge", has_text="May have happened")).to_have_count(1)
    await expect(line.locator(".badge", has_text="Uncertain")).to_have_count(1)
    await expect(page.get_by_role("button", name="I checked: it happened")).to_have_count(0)
    assert len(app_received(app)) == before + 1


async def test_try_again_makes_at_most_one_new_request_never_a_replay(nod, ada):
    app = nod.urls["app"]
    before = len(app_received(app))
    page = ada.page
    await _uncertain_note(nod, ada)
    dropped = app_received(app)[before:]
    assert len(dropped) == 1

    await page.get_by_role("button", name="Try again (a new request)").click()
    resolved = page.locator("#timeline .line", has_text="You checked: it did not happen.")
    await expect(resolved.first).to_be_visible(timeout=30_000)
    await expect(page.locator("#timeline")).to_contain_text("Try again, as a new request")
    await _ended(page)
    await ada.shot("app-action-try-again")
    after = app_received(app)[before:]
    # At most one new request; any new one is new (its own idempotency key),
    # not the dropped one sent again.
    assert len(after) <= 2, after
    keys = [entry["idempotency_key"] for entry in after]
    assert len(set(keys)) == len(keys), keys


async def test_an_uncertain_code_entry_checked_as_not_happened(nod, ada):
    seen = SeenPages()
    shop = nod.urls["shop"]
    before = shop_counts(shop)
    page = ada.page
    await ada.start_task(SIGN_IN_TASK)
    code_box = page.get_by_label("One-time code")
    await expect(code_box).to_be_visible(timeout=60_000)
    code = await one_time_code()
    # (A dropped answer shows the browser an error page, which counts as
    # submitted; a held one times the entry out: UNCERTAIN.)
    with shop_mode(shop, "otp", "hold"):
        await code_box.fill(code)
        await page.get_by_role("button", name="Give it to nod, once").click()
        await _check_offered(page)
        await seen.keep(page)
    entry = page.locator("#timeline .line", has_text="one-time code you gave").last
    await expect(entry.locator(".badge", has_text="May have happened")).to_be_visible()
    await expect(entry.locator(".explain")).to_contain_text(MEANS)
    await ada.shot("code-entry-uncertain")
    assert counts_since(shop, before)["otp"] == 1

    await page.get_by_role("button", name="I checked: it didn't happen").click()
    resolved = page.locator("#timeline .line", has_text="You checked: it did not happen.")
    await expect(resolved.first).to_be_visible(timeout=30_000)
    await expect(resolved.first.locator(".badge", has_text="May have happened")).to_be_visible()
    await _ended(page)
    await ada.shot("code-entry-checked-not-happened")
    await seen.keep(page)
    await page.reload()
    await expect(page.get_by_role("button", name="Continue")).to_be_visible()
    await seen.keep(page)
    # The code was entered once, and the check entered nothing more.
    assert counts_since(shop, before)["otp"] == 1
    seen.assert_absent(code)
    assert not shows(code, nod.log_text())
