"""The picture of the page a step left, folded under the step's line: its
Details hold it (loaded lazily, described for a screen reader), the route
serves it to the task's owner only, never cached, and answers 404 to
anyone else, as every other page of the owner's task does."""

import re

from playwright.async_api import expect

from .outside import SIGN_IN_TASK

ALT = "The page after this step (private fields painted over)"
NOT_ALLOWED = re.compile(r"status of 404")


async def test_a_steps_details_hold_the_page_it_left_for_its_owner_only(ada, stranger):
    page = ada.page
    task_id = await ada.start_task(SIGN_IN_TASK)
    await expect(page.get_by_label("One-time code")).to_be_visible(timeout=60_000)
    await page.reload()
    opened = page.locator('li[data-step="1"]')  # the shop's sign-in page, opened
    picture = opened.locator("details img")
    await expect(picture).to_have_count(1)
    await expect(picture).to_have_attribute("alt", ALT)
    await expect(picture).to_have_attribute("loading", "lazy")
    source = await picture.get_attribute("src")
    assert source == f"/tasks/{task_id}/steps/1/page"
    await opened.locator("details > summary").click()
    await expect(picture).to_be_visible()
    loaded = await picture.evaluate("async (i) => { await i.decode(); return i.naturalWidth; }")
    assert loaded == 1280
    await ada.shot("step-page-picture")

    mine = await page.request.get(source)
    assert mine.status == 200
    assert mine.headers["content-type"] == "image/png"
    assert mine.headers["cache-control"] == "private, no-store"
    assert (await mine.body()).startswith(b"\x89PNG")

    stranger.expected_console.append(NOT_ALLOWED)
    theirs = await stranger.page.request.get(source)
    assert theirs.status == 404
    assert not (await theirs.body()).startswith(b"\x89PNG")
    none = await page.request.get(f"/tasks/{task_id}/steps/99/page")
    assert none.status == 404
