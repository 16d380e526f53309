"""Every page a person meets, and a task page in each state it shows a
person, pass axe-core's WCAG 2 A and AA rules at 1280 and 390 px; and the
demo sign-in can be done with the keyboard alone. axe-core comes from npm
with the other tools (tools/package.json), never from the network at run
time."""

import json
import pathlib

import pytest
from playwright.async_api import Page, expect

from .conftest import ARTIFACTS
from .outside import SIGN_IN_TASK
from .people import Person
from .shop import one_time_code

ROOT = pathlib.Path(__file__).resolve().parents[2]
AXE = ROOT / "tools/node_modules/axe-core/axe.min.js"
RULES = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}
WIDTHS = (1280, 390)


@pytest.fixture
async def ada_checked(nod, chromium, request):
    """ada, signed in, in a browser whose pages take axe's script (the
    gateway's CSP lets no script but its own run)."""
    person = Person(nod, chromium, "ada", nod.web_password(), ARTIFACTS / request.node.name)
    await person.open(bypass_csp=True)
    await person.sign_in()
    yield person
    await person.close()


async def violations(page: Page) -> list[dict]:
    if not await page.evaluate("() => Boolean(window.axe)"):
        await page.add_script_tag(path=str(AXE))
    found = await page.evaluate("(rules) => axe.run(document, rules)", RULES)
    assert found["passes"], "axe checked nothing"  # it ran, and looked
    return [
        {"rule": v["id"], "impact": v["impact"], "where": [n["target"] for n in v["nodes"]][:5]}
        for v in found["violations"]
    ]


async def accessible_at_every_width(page: Page, what: str) -> None:
    problems = {}
    for width in WIDTHS:
        await page.set_viewport_size({"width": width, "height": 900})
        if found := await violations(page):
            problems[width] = found
    await page.set_viewport_size({"width": 1280, "height": 900})
    assert not problems, f"{what}: {json.dumps(problems, indent=1)}"


@pytest.mark.parametrize("path", ["/tasks", "/decisions", "/vault", "/apps", "/history", "/you"])
async def test_each_page_is_accessible(ada_checked, path):
    await ada_checked.page.goto(path)
    await accessible_at_every_width(ada_checked.page, path)


async def test_the_sign_in_page_is_accessible(nod, chromium):
    context = await chromium.new_context(base_url=nod.gateway_url, bypass_csp=True)
    page = await context.new_page()
    try:
        await page.goto("/signin")
        await accessible_at_every_width(page, "/signin")
    finally:
        await context.close()


async def test_a_task_page_in_each_state_is_accessible_and_done_by_keyboard(ada_checked):
    page = ada_checked.page
    await ada_checked.start_task(SIGN_IN_TASK)
    code_box = page.get_by_label("One-time code")
    await expect(code_box).to_be_visible(timeout=60_000)
    await accessible_at_every_width(page, "a task waiting for a code")

    # The keyboard alone: to the code box, type, and send with Enter.
    await page.keyboard.press("Tab")
    for _ in range(40):
        if await code_box.evaluate("(box) => box === document.activeElement"):
            break
        await page.keyboard.press("Tab")
    else:
        pytest.fail("the code box can't be reached with Tab")
    await page.keyboard.type(await one_time_code())
    await page.keyboard.press("Enter")

    await expect(page.locator(".state-line .badge")).to_have_text("Done", timeout=90_000)
    details = page.locator("#timeline details").first
    await details.locator("summary").focus()
    await page.keyboard.press("Enter")
    await expect(details).to_have_attribute("open", "")
    await accessible_at_every_width(page, "a task that is done, a step's details open")
