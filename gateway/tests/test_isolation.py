"""A person only ever sees and acts on their own things, and only from nod's
own pages: another person gets 404 for ada's task, its live timeline, its
decisions, Stop, Continue and its private form, by address or by form, and
ada's task is unchanged; a post made by another site's page, or without the
right CSRF token, is refused (403) and does nothing. The session cookie is
HttpOnly and SameSite=Lax; repeated wrong passwords lock that name out, and
a forged X-Forwarded-For names no address."""

import asyncio
import contextlib
import http.server
import json
import re
import threading
import urllib.request
import uuid

import psycopg
from playwright.async_api import Page, expect

from nodtest.addresses import SITE_HOST

from .people import Person
from .shop import one_time_code

PURCHASE = "Buy the desk lamp at the demo shop"
NOTE = "Send a note to the demo app: hello from nod"
SIGN_IN = "Sign in to the demo shop"
NOT_ALLOWED = re.compile(r"status of (403|404)")


def app_received(app_url: str) -> int:
    with urllib.request.urlopen(f"{app_url}/_control/received", timeout=5) as reply:
        return len(json.load(reply))


async def csrf_of(page: Page) -> str:
    return await page.locator("input[name=csrf]").first.get_attribute("value") or ""


async def post_as_a_form(page: Page, action: str, values: dict[str, str]):
    """What a form on the open page would send: a real browser form post
    with the page's cookies. Returns the page's final answer."""
    async with page.expect_navigation() as navigation:
        await page.evaluate(
            """([action, values]) => {
                const form = document.createElement("form");
                form.method = "post";
                form.action = action;
                for (const [name, value] of Object.entries(values)) {
                    const input = document.createElement("input");
                    input.type = "hidden";
                    input.name = name;
                    input.value = value;
                    form.append(input);
                }
                document.body.append(form);
                form.submit();
            }""",
            [action, values],
        )
    return await navigation.value


async def refused_both_ways(them: Page, action: str, values: dict[str, str]) -> None:
    """404 from a form post in the stranger's browser and from a plain request."""
    await them.goto("/tasks")
    csrf = await csrf_of(them)
    answer = await post_as_a_form(them, action, {"csrf": csrf, **values})
    assert answer.status == 404, action
    await expect(them.get_by_role("heading", name="Not found")).to_be_visible()
    answer = await them.request.post(action, form={"csrf": csrf, **values})
    assert answer.status == 404, action


async def stop_from_its_page(page: Page, task_id: str) -> None:
    await page.goto(f"/tasks/{task_id}")
    await page.get_by_role("button", name="Stop this task").click()
    await expect(page.locator(".state-line .badge")).to_have_text("Stopped")


async def test_a_stranger_cant_open_decide_stop_or_answer_adas_tasks(nod, ada, stranger):
    page, them = ada.page, stranger.page
    stranger.expected_console.append(NOT_ALLOWED)
    received = app_received(nod.urls["app"])

    purchase = await ada.start_task(PURCHASE)
    await expect(page.get_by_label("One-time code")).to_be_visible(timeout=60_000)
    form = page.locator(f"form[action^='/tasks/{purchase}/forms/']")
    form_action = await form.get_attribute("action")
    assert form_action

    for path in (f"/tasks/{purchase}", f"/tasks/{purchase}/events"):
        answer = await them.goto(path)
        assert answer is not None and answer.status == 404, path
        await expect(them.get_by_role("heading", name="Not found")).to_be_visible()
    await stranger.shot("adas-task-not-found")
    await refused_both_ways(them, form_action, {"value": "123456"})
    await refused_both_ways(them, f"/tasks/{purchase}/stop", {})
    await refused_both_ways(them, f"/tasks/{purchase}/continue", {"text": "Continue."})

    # Ada's task is still waiting for her code; she gives it, and pays.
    await page.reload()
    await expect(page.locator(".state-line .badge")).to_have_text("Needs you")
    await page.get_by_label("One-time code").fill(await one_time_code())
    await page.get_by_role("button", name="Give it to nod, once").click()
    payment_card = page.locator(".decision[id^='payment-']")
    await expect(payment_card).to_be_visible(timeout=60_000)
    payment_id = (await payment_card.get_attribute("id") or "").removeprefix("payment-")
    await refused_both_ways(them, f"/payments/{payment_id}/decide", {"decision": "yes"})

    note = await ada.start_task(NOTE)
    approval_card = page.locator(".decision[id^='approval-']")
    await expect(approval_card).to_be_visible(timeout=60_000)
    approval_id = (await approval_card.get_attribute("id") or "").removeprefix("approval-")
    await refused_both_ways(them, f"/approvals/{approval_id}/decide", {"decision": "yes"})
    await refused_both_ways(them, f"/tasks/{note}/stop", {})

    # Nothing moved: both of ada's decisions still wait for her, and the
    # demo app received nothing.
    for task_id, button in ((purchase, "Yes, pay"), (note, "Yes, run it")):
        await page.goto(f"/tasks/{task_id}")
        await expect(page.locator(".state-line .badge")).to_have_text("Needs you")
        await expect(page.get_by_role("button", name=button)).to_be_visible()
    assert app_received(nod.urls["app"]) == received

    # None of ada's things is on the stranger's own pages.
    seen = []
    for path in ("/tasks", "/decisions", "/vault", "/apps", "/history"):
        await them.goto(path)
        seen.append(await them.content())
    html = "".join(seen)
    for adas in (purchase, note, payment_id, approval_id, "Demo shop", "Demo card", "Demo app"):
        assert adas not in html, adas
    await expect(them.get_by_text("No private entries.")).to_be_visible()
    await them.goto("/decisions")
    await expect(them.get_by_text("Nothing is waiting for your decision.")).to_be_visible()

    await stop_from_its_page(page, purchase)
    await stop_from_its_page(page, note)


@contextlib.contextmanager
def another_site(html: str):
    """A page served by another origin (the same host, another port)."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = html.encode()
            self.send_response(200)
            self.send_header("content-type", "text/html; charset=utf-8")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer((SITE_HOST, 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://{SITE_HOST}:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


async def test_a_post_from_another_site_or_without_the_token_is_refused(nod, ada):
    page = ada.page
    ada.expected_console.append(NOT_ALLOWED)
    waiting = await ada.start_task(SIGN_IN)
    await expect(page.get_by_label("One-time code")).to_be_visible(timeout=60_000)
    await page.goto("/tasks")
    tasks_before = await page.locator(".tasks li").count()
    # Even with ada's real token (say it leaked), another site's page can't post.
    csrf = await csrf_of(page)
    gateway = nod.gateway_url
    trap = f"""<!doctype html><title>win a prize</title>
<form method="post" action="{gateway}/stop"><input type="hidden" name="csrf" value="{csrf}">
<button>Win a prize</button></form>
<form method="post" action="{gateway}/tasks"><input type="hidden" name="csrf" value="{csrf}">
<input type="hidden" name="request_id" value="{uuid.uuid4().hex}">
<input type="hidden" name="text" value="{PURCHASE}"><button>Claim your lamp</button></form>"""
    with another_site(trap) as site:
        for button in ("Win a prize", "Claim your lamp"):
            await page.goto(site)
            async with page.expect_navigation() as navigation:
                await page.get_by_role("button", name=button).click()
            answer = await navigation.value
            assert answer.status == 403, button
            await expect(page.get_by_role("heading", name="Refused")).to_be_visible()
            await ada.shot(f"cross-site-{button.split()[0].lower()}")

    # Without the token, or with a wrong one, from a tool rather than a page.
    for form in ({}, {"csrf": "not-the-token"}):
        answer = await page.request.post(f"/tasks/{waiting}/stop", form=form)
        assert answer.status == 403
        answer = await page.request.post(
            "/tasks", form={**form, "text": PURCHASE, "request_id": uuid.uuid4().hex}
        )
        assert answer.status == 403

    await page.goto("/tasks")
    await expect(page.locator(".tasks li")).to_have_count(tasks_before)
    await page.goto(f"/tasks/{waiting}")
    await expect(page.locator(".state-line .badge")).to_have_text("Needs you")
    await expect(page.get_by_label("One-time code")).to_be_visible()
    await stop_from_its_page(page, waiting)


async def test_the_session_cookie_is_httponly_and_samesite_lax(ada):
    assert ada.context is not None
    cookies = {c["name"]: c for c in await ada.context.cookies()}
    session = cookies["nod_session"]
    assert session["httpOnly"] is True
    assert session["sameSite"] == "Lax"
    # Scripts on the page can't read it.
    assert "nod_session" not in await ada.page.evaluate("document.cookie")


async def test_wrong_passwords_lock_the_name_out_for_a_while(nod, chromium, tmp_path):
    name = f"cal-{uuid.uuid4().hex[:6]}"
    password = await asyncio.to_thread(nod.add_person, name)
    person = Person(nod, chromium, name, password, tmp_path)
    person.expected_console.append(re.compile(r"status of (401|429)"))
    page = await person.open()
    try:
        await page.goto("/signin")

        async def try_password(typed: str) -> int:
            await page.get_by_label("Name").fill(name)
            await page.get_by_label("Password").fill(typed)
            async with page.expect_response(
                lambda r: r.request.method == "POST" and "/signin" in r.url
            ) as answer:
                await page.get_by_role("button", name="Sign in").click()
            return (await answer.value).status

        for _ in range(5):
            assert await try_password("not-my-password") == 401
            await expect(page.get_by_role("alert")).to_contain_text("don't match")
        assert await try_password(password) == 429
        await expect(page.get_by_role("alert")).to_contain_text("Too many tries")
        await expect(page.get_by_role("heading", name="Sign in to nod")).to_be_visible()
    finally:
        await person.close()


async def test_a_forged_forwarded_header_names_no_address(nod, chromium, tmp_path):
    # make run trusts no proxy: the sign-in limits count the connection's
    # own address, whatever a client writes in X-Forwarded-For.
    name = f"dee-{uuid.uuid4().hex[:6]}"
    await asyncio.to_thread(nod.add_person, name)
    person = Person(nod, chromium, name, "not-my-password", tmp_path)
    person.expected_console.append(re.compile(r"status of 401"))
    page = await person.open()
    try:
        await page.context.set_extra_http_headers({"X-Forwarded-For": "203.0.113.9"})
        await page.goto("/signin")
        await page.get_by_label("Name").fill(name)
        await page.get_by_label("Password").fill("not-my-password")
        await page.get_by_role("button", name="Sign in").click()
        await expect(page.get_by_role("alert")).to_contain_text("don't match")
    finally:
        await person.close()
    url = nod.database_url().replace("+psycopg", "")
    async with await psycopg.AsyncConnection.connect(url) as conn:
        rows = await conn.execute(
            "SELECT address, succeeded FROM gateway.sign_in_attempts WHERE name = %s", (name,)
        )
        assert await rows.fetchall() == [("127.0.0.1", False)]
