"""Every page a person can reach, at a desktop width and at 375 px (a small
phone): no console errors (the Person's check), nothing wider than the
screen, and no serious or critical axe-core violation. A screenshot of
each page at each width is kept under var/test-artifacts/<test name>/
(NOD_TEST_ARTIFACTS moves it).

The pages: sign-in (and a refused sign-in), the empty task list of a new
person, a task running (the shop holding the sign-in), waiting for a
one-time code, the payment card, the security-code form, done with its
timeline, an app action waiting for a decision, an uncertain action asking
the person to check, the list after Stop all, the form to pick a login or
type a password, a stopped task, a filtered list, Decisions, Vault, Apps,
History, You, a 404 and a problem page."""

import re
import uuid

import pytest
from playwright.async_api import expect

from .conftest import ARTIFACTS
from .outside import app_mode, shop_mode
from .page_checks import PageChecks
from .people import Person
from .shop import one_time_code

PURCHASE = "Buy the desk lamp at the demo shop"
SIGN_IN = "Sign in to the demo shop"
NOTE = "Send a note to the demo app: hello from nod"
WIDTHS = [1280, 375]
STATE = ".state-line .badge"


class Visits(PageChecks):
    async def visit(self, name: str, path: str, status: int = 200) -> None:
        """Opens a page by its address and checks it; a page that answers
        with another status than expected (a route not there) is a finding."""
        response = await self.person.page.goto(path)
        if response is None or response.status != status:
            got = response.status if response else "nothing"
            self.problems.append(f"{name} ({path}) at {self.width} px answered {got}")
            # Its console error is this finding, said once.
            self.person.expected_console.append(re.compile("status of"))
        await self.check(name)


async def signed_out_pages(nod, chromium, shots, width: int) -> list[str]:
    """A new person: sign-in, a refused sign-in, their empty task list."""
    name = f"new-{uuid.uuid4().hex[:6]}"
    newcomer = Person(nod, chromium, name, nod.add_person(name), shots)
    page = await newcomer.open(width)
    checks = Visits(newcomer, width)
    try:
        await checks.visit("signin", "/signin")
        newcomer.expected_console.append(re.compile(r"status of 401"))
        await page.get_by_label("Name").fill(name)
        await page.get_by_label("Password").fill("not the password")
        await page.get_by_role("button", name="Sign in").click()
        await expect(page.get_by_role("alert")).to_contain_text("don't match")
        await checks.check("signin-refused")
        await newcomer.sign_in()
        await expect(page.get_by_text("No tasks yet.")).to_be_visible()
        await checks.check("tasks-empty")
    finally:
        await newcomer.close()
    checks.assert_clean()
    return checks.checked


async def purchase_pages(ada: Person, checks: Visits, shop_url: str) -> None:
    """One purchase, checked at each of its stops."""
    page = ada.page
    # The shop holds the sign-in, so the task stays Running while it is checked.
    with shop_mode(shop_url, "login", "hold", 30):
        await ada.start_task(PURCHASE)
        await expect(page.locator(STATE)).to_have_text("Running", timeout=60_000)
        await expect(page.locator("#timeline .badge", has_text="Running").first).to_be_visible(
            timeout=60_000
        )
        await checks.check("task-running")
    code_box = page.get_by_label("One-time code")
    await expect(code_box).to_be_visible(timeout=60_000)
    await checks.check("task-waiting-code")
    await code_box.fill(await one_time_code())
    await page.get_by_role("button", name="Give it to nod, once").click()

    card = page.locator(".decision", has=page.get_by_role("heading", name="Pay this?"))
    await expect(card).to_be_visible(timeout=60_000)
    await checks.check("task-payment-card")
    # One screen of it, as the README shows it (docs/web-ui.png is a copy).
    await page.screenshot(path=str(ada.shots / f"screen-payment-card-{checks.width}px.png"))
    await card.get_by_role("button", name="Yes, pay").click()
    security_box = page.get_by_label("Card security code")
    await expect(security_box).to_be_visible(timeout=60_000)
    await checks.check("task-security-code")
    await security_box.fill("123")
    await page.get_by_role("button", name="Give it to nod, once").click()
    await expect(page.locator(STATE)).to_have_text("Done", timeout=90_000)
    code_line = page.locator("#timeline .line", has_text="Typed the one-time code you gave")
    await expect(code_line.locator(".badge", has_text="Worked")).to_be_visible()
    await checks.check("task-done")
    await page.reload()
    await checks.check("task-done-reloaded")


async def decision_pages(ada: Person, checks: Visits, app_url: str) -> None:
    """An app action waiting for a yes, on its task page and on Decisions;
    then the app drops the request: uncertain, and the task asks the
    person to check. Stop all ends it."""
    page = ada.page
    await ada.start_task(NOTE)
    card = page.locator(".decision", has=page.get_by_role("heading", name="Run this app action?"))
    await expect(card).to_be_visible(timeout=60_000)
    task_url = page.url
    await checks.check("task-decision")
    await checks.visit("decisions", "/decisions")
    await page.goto(task_url)
    with app_mode(app_url, "drop"):
        await page.locator(".decision").get_by_role("button", name="Yes, run it").click()
        check = page.get_by_role("heading", name="Please check: this may have happened")
        await expect(check).to_be_visible(timeout=60_000)
    await checks.check("task-uncertain")
    await page.get_by_role("button", name="Stop all").click()
    await expect(page.get_by_role("status")).to_contain_text("Stopped")
    await checks.check("tasks-stopped")


async def login_form_pages(ada: Person, checks: Visits, shop_url: str) -> None:
    """The shop cuts the connection after the saved login's submit: the
    page check can't tell, so nod won't enter that login again and opens
    the form to pick a login or type a password."""
    page = ada.page
    with shop_mode(shop_url, "login", "drop"):
        await ada.start_task(SIGN_IN)
        await expect(page.get_by_role("textbox", name="Password")).to_be_visible(timeout=90_000)
    await checks.check("task-login-form")
    await page.get_by_role("button", name="Stop this task").click()
    await expect(page.locator(STATE)).to_have_text("Stopped", timeout=30_000)
    await checks.check("task-stopped")


@pytest.mark.timeout(900)
@pytest.mark.parametrize("width", WIDTHS)
async def test_every_page(nod, chromium, request, width):
    shots = ARTIFACTS / request.node.name
    checked = await signed_out_pages(nod, chromium, shots, width)

    ada = Person(nod, chromium, "ada", nod.web_password(), shots)
    await ada.open(width)
    checks = Visits(ada, width)
    try:
        await ada.sign_in()
        await purchase_pages(ada, checks, nod.urls["shop"])
        await decision_pages(ada, checks, nod.urls["app"])
        await login_form_pages(ada, checks, nod.urls["shop"])
        await checks.visit("tasks", "/tasks")
        await checks.visit("tasks-done", "/tasks?state=done")
        await checks.visit("vault", "/vault")
        await checks.visit("apps", "/apps")
        await checks.visit("history", "/history")
        await checks.visit("you", "/you")
        ada.expected_console.append(re.compile(r"status of (404|400)"))
        await checks.visit("not-found", f"/tasks/{uuid.uuid4()}", status=404)
        await expect(ada.page.get_by_role("heading", name="Not found")).to_be_visible()
        await checks.visit("problem", "/tasks/not-a-task", status=400)
        await expect(ada.page.get_by_role("alert")).to_be_visible()
        html = await ada.page.content()
        assert "Traceback" not in html
    finally:
        await ada.close()
    print(f"checked at {width} px:", ", ".join(checked + checks.checked))
    checks.assert_clean()
