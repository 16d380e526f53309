"""Look for me (G14) on the task page: for an app action whose answer was
lost, nod reads the app's own list of what it received (the status address
the demo account names) and shows what it found under the step, with the
page it saw. The look sends nothing: the app receives no second request,
the step stays "may have happened", and the person still decides."""

from playwright.async_api import expect

from .outside import app_received
from .test_person_view import photograph, read_as_a_person
from .test_uncertain import _check_offered, _uncertain_note

FOUND = "Found: it happened"


async def test_a_look_finds_the_lost_app_action_and_sends_nothing(nod, ada):
    app = nod.urls["app"]
    before = len(app_received(app))
    page = ada.page
    step = await _uncertain_note(nod, ada)
    assert len(app_received(app)) == before + 1  # it arrived; the answer was lost
    check = await _check_offered(page)
    await expect(check).to_contain_text("Ask nod to look at the page, the order or the account")

    await check.get_by_role("button", name="Look for me").click()
    look = page.locator("#timeline .line .look").last
    await expect(look.locator(".badge", has_text=FOUND)).to_be_visible(timeout=60_000)
    await expect(look).to_contain_text("The app lists this action as received")
    # In words a person reads: no JSON, rule or tool names, model-facing text.
    await read_as_a_person(page)
    await photograph(ada, "look-found")

    # The page it saw is kept, for the person alone.
    picture = look.locator("img.line-page")
    address = await picture.get_attribute("src")
    assert address and address.endswith("/look")
    answer = await page.request.get(address)
    assert answer.status == 200
    assert answer.headers["content-type"] == "image/png"
    assert (await answer.body()).startswith(b"\x89PNG")

    # Nothing was sent again, the step still may have happened, and the
    # person still answers what they found.
    assert len(app_received(app)) == before + 1
    step = page.locator("#timeline .line", has=page.locator(".look")).last
    await expect(step.locator(".badge", has_text="May have happened")).to_be_visible()
    await expect(check.get_by_role("button", name="I checked: it happened")).to_be_visible()


async def test_a_look_at_a_step_the_task_does_not_have_changes_nothing(nod, ada):
    """A forged look (a step the task doesn't have) answers in words. The
    route matrix asks one of a step that is not uncertain (409)."""
    app = nod.urls["app"]
    page = ada.page
    await _uncertain_note(nod, ada)
    before = len(app_received(app))
    task_id = page.url.split("/tasks/", 1)[1].split("#")[0]
    csrf = await page.locator("input[name=csrf]").first.get_attribute("value")
    answer = await page.request.post(
        f"{nod.gateway_url}/tasks/{task_id}/steps/999/look", form={"csrf": csrf or ""}
    )
    assert answer.status == 404
    assert "There is nothing here" in await answer.text()
    assert len(app_received(app)) == before
