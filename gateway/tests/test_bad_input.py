"""Bad input in every form the person fills in (a task's text, a vault
item, an app account, continue): a NUL character or a value too long is a
400 that names the field, and nothing changes. A secret sent is not echoed
back in the answer."""

import re

from playwright.async_api import Page, expect

SIGN_IN = "Sign in to the demo shop"
NUL = "a\x00b"

# (address, the other fields all fine, {field: (its words in the answer, longest allowed)})
FORMS = [
    (
        "/tasks",
        {"text": "Say hello", "request_id": "bad-input-start"},
        {"text": ("text", 4000)},
    ),
    (
        "/vault/logins",
        {
            "label": "Bad input",
            "origin": "https://bad.example",
            "username": "u@example.com",
            "password": "pw-bad-input",
        },
        {
            "label": ("Label", 200),
            "origin": ("Site address", 512),
            "username": ("Username", 1024),
            "password": ("Password", 1024),
        },
    ),
    (
        "/vault/cards",
        {
            "label": "Bad input",
            "number": "4000056655665556",
            "expiry": "09/31",
            "holder_name": "Ada",
        },
        {
            "label": ("Label", 200),
            "number": ("Card number", 40),
            "expiry": ("Expiry", 7),
            "holder_name": ("Name on the card", 200),
        },
    ),
    (
        "/apps/webhook",
        {"label": "Bad input", "url": "http://127.0.0.1:9/hook", "token": "tok-bad-input"},
        {"label": ("Label", 200), "url": ("URL", 2048), "token": ("Token", 4096)},
    ),
    (
        "/apps/smtp",
        {
            "label": "Bad input",
            "host": "127.0.0.1",
            "port": "2525",
            "from": "ada@example.com",
            "username": "ada",
            "password": "pw-bad-input",
        },
        {
            "label": ("Label", 200),
            "host": ("Mail server", 253),
            "port": ("Port", 5),
            "from": ("From address", 254),
            "username": ("Username", 1024),
            "password": ("Password", 1024),
        },
    ),
]
SECRETS = ("password", "number", "token")


async def what_there_is(page: Page) -> dict[str, int]:
    counts = {}
    for path, rows in (
        ("/tasks", ".tasks li"),
        ("/vault", ".items li"),
        ("/apps", ".accounts li"),
    ):
        await page.goto(path)
        counts[path] = await page.locator(rows).count()
    return counts


async def refused(page: Page, path: str, form: dict[str, str], words: str) -> None:
    answer = await page.request.post(path, form=form)
    body = await answer.text()
    assert answer.status == 400, (path, form.keys(), answer.status)
    # The sentence that names it, not just the label beside the input.
    assert re.search(rf"\b{re.escape(words)} (contains a NUL|is longer than)", body), (path, words)
    for name in SECRETS:
        value = form.get(name, "")
        if len(value) > 20:
            assert value not in body, (path, name)


async def test_nul_and_oversized_values_are_refused_naming_the_field(ada):
    page = ada.page
    before = await what_there_is(page)
    csrf = await page.locator("input[name=csrf]").first.get_attribute("value")
    for path, good, checked in FORMS:
        for name, (words, longest) in checked.items():
            for bad in (NUL, "x" * (longest + 1)):
                await refused(page, path, {**good, name: bad, "csrf": csrf}, words)
    # Far past any field's limit (the form reader's own cap): still a 400.
    answer = await page.request.post(
        "/tasks", form={"text": "x" * 200_000, "request_id": "bad-input-huge", "csrf": csrf}
    )
    assert answer.status == 400
    assert await what_there_is(page) == before


async def test_bad_continue_text_is_refused_and_the_task_stays_as_it_was(ada):
    page = ada.page
    task_id = await ada.start_task(SIGN_IN)
    await expect(page.get_by_label("One-time code")).to_be_visible(timeout=60_000)
    await page.get_by_role("button", name="Stop this task").click()
    badge = page.locator(".state-line .badge")
    await expect(badge).to_have_text("Stopped")
    csrf = await page.locator("input[name=csrf]").first.get_attribute("value")
    for bad in (NUL, "x" * 4001):
        form = {"text": bad, "csrf": csrf}
        await refused(page, f"/tasks/{task_id}/continue", form, "text")
    await page.reload()
    await expect(badge).to_have_text("Stopped")
    await expect(page.get_by_role("button", name="Continue")).to_be_visible()
