"""Every page works without JavaScript but the live timeline: with scripts
off, a person starts a task, reloads to follow it, and decides with plain
form posts. The app action still runs once."""

import asyncio
import json
import re
import urllib.request

from playwright.async_api import expect

from .people import Person

NOTE = "Send a note to the demo app: hello from nod"


def messages_received(app_url: str) -> int:
    with urllib.request.urlopen(f"{app_url}/_control/received", timeout=5) as reply:
        return len(json.load(reply))


async def reload_until(page, locator, tries: int = 120) -> None:
    for _ in range(tries):
        if await locator.count():
            return
        await asyncio.sleep(0.5)
        await page.reload()
    raise AssertionError(f"never appeared: {locator}")


async def test_a_person_decides_an_app_action_with_scripts_turned_off(nod, chromium, tmp_path):
    person = Person(nod, chromium, "ada", nod.web_password(), tmp_path)
    page = await person.open(java_script=False)
    try:
        await person.sign_in()
        before = messages_received(nod.urls["app"])
        await person.start_task(NOTE)
        yes = page.get_by_role("button", name="Yes, run it")
        await reload_until(page, yes)
        await yes.click()
        # A plain post comes back to the task page (303), with the outcome.
        await expect(page).to_have_url(re.compile(r"/tasks/[0-9a-f-]+$"))
        await reload_until(page, page.locator(".state-line .badge", has_text="Done"))
        assert messages_received(nod.urls["app"]) - before == 1
    finally:
        await person.close()
