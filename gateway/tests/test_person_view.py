"""What a person reads of a task, read as a person would: the demo tasks
and the ordinary mistakes (a wrong code, then a right one; three wrong
codes; Stop while nod waits and while it signs in; a browser with every
place taken) end with a badge that says how the task came
out and one sentence why, above a timeline of one line per step in words.
Every line in view is read: no JSON, no tool or rule names, no words meant
for the model (only the folded Details may hold what nod asked exactly).
Each state is photographed at 1280 and 390 px (`make screens` keeps them
under docs/screens/)."""

import contextlib
import re
import uuid

import grpc
import pytest
from playwright.async_api import Page, expect

from nod.browser.v1 import browser_pb2, browser_pb2_grpc
from nod_tasks.domain.tools import BY_NAME

from .outside import SIGN_IN_TASK, shop_mode
from .shop import a_wrong_code, one_time_code

# Words written for the model or the log, never for a person.
MODEL_WORDS = ("new_action_reason", "identical to step", "operation_id", "claim_id", "payment_id")
RULE_NAME = re.compile(r"\b[A-Z]{2,}(?:_[A-Z]+)+\b")
# The tools' names that are no English words (finish, navigate, click are).
TOOL_NAME = re.compile(r"\b(" + "|".join(name for name in BY_NAME if "_" in name) + r")\b")
# The page's text in view: the task's panel and its timeline, without what
# is folded under Details.
IN_VIEW = """() => {
  const main = document.querySelector("main").cloneNode(true);
  main.querySelectorAll("details > :not(summary)").forEach((e) => e.remove());
  return main.innerText;
}"""


async def read_as_a_person(page: Page) -> str:
    text = await page.evaluate(IN_VIEW)
    assert "{" not in text and "}" not in text, text
    assert not RULE_NAME.findall(text), RULE_NAME.findall(text)
    assert not TOOL_NAME.findall(text), TOOL_NAME.findall(text)
    assert not [words for words in MODEL_WORDS if words in text], text
    return text


async def photograph(ada, name: str) -> None:
    page = ada.page
    await ada.shot(f"{name}-1280")
    await page.set_viewport_size({"width": 390, "height": 844})
    await ada.shot(f"{name}-390")
    await page.set_viewport_size({"width": 1280, "height": 900})


async def give_code(page: Page, code: str) -> None:
    box = page.get_by_label("One-time code")
    await expect(box).to_be_visible(timeout=60_000)
    await box.fill(code)
    await page.get_by_role("button", name="Give it to nod, once").click()


async def ended_with(page: Page, badge: str) -> None:
    await expect(page.locator(".state-line .badge")).to_have_text(badge, timeout=90_000)


async def test_a_sign_in_that_worked_reads_done(nod, ada):
    page = ada.page
    await ada.start_task(SIGN_IN_TASK)
    await expect(page).to_have_title(re.compile("^Needs you"), timeout=60_000)
    await read_as_a_person(page)
    await photograph(ada, "code-asked")
    await give_code(page, await one_time_code())

    await ended_with(page, "Done")

    text = await read_as_a_person(page)
    assert "with your saved login" in text and "Typed the one-time code you gave" in text
    await photograph(ada, "signed-in")


async def test_a_wrong_code_is_asked_for_again_then_the_right_one_goes_in(nod, ada):
    page = ada.page
    await ada.start_task(SIGN_IN_TASK)
    await give_code(page, a_wrong_code())
    asked_again = page.get_by_role("heading", name=re.compile("didn't accept that code"))
    await expect(asked_again).to_be_visible(timeout=60_000)
    await read_as_a_person(page)
    await photograph(ada, "code-refused-asked-again")
    await give_code(page, await one_time_code())

    await ended_with(page, "Done")

    lines = page.locator("#timeline .line", has_text="Typed the one-time code you gave")
    await expect(lines).to_have_count(2)
    await expect(lines.nth(0).locator(".badge")).to_have_text("Didn't work")
    await expect(lines.nth(1).locator(".badge")).to_have_text("Worked")
    await read_as_a_person(page)


async def test_three_refused_codes_read_didnt_finish_and_why(nod, ada):
    page = ada.page
    await ada.start_task(SIGN_IN_TASK)
    for _ in range(3):
        await expect(page.get_by_label("One-time code")).to_be_visible(timeout=60_000)
        await give_code(page, a_wrong_code())

    await ended_with(page, "Didn't finish")

    text = await read_as_a_person(page)
    assert "didn't accept the one-time code" in text.lower(), text
    assert "Done" not in await page.locator(".state-line").inner_text()
    await photograph(ada, "codes-refused")


@pytest.mark.parametrize("then_continue", [False, True], ids=["stopped", "continued"])
async def test_stop_while_nod_waits_reads_stopped(nod, ada, then_continue):
    page = ada.page
    await ada.start_task(SIGN_IN_TASK)
    await expect(page.get_by_label("One-time code")).to_be_visible(timeout=60_000)
    await page.get_by_role("button", name="Stop this task").click()

    await ended_with(page, "Stopped")
    await read_as_a_person(page)
    if not then_continue:
        await photograph(ada, "stopped")
        return
    await page.get_by_label("Tell nod what you found, then continue").fill("go on")
    await page.get_by_role("button", name="Continue").click()
    await ended_with(page, "Didn't finish")
    text = await read_as_a_person(page)
    assert "Nothing more to do" not in text
    await photograph(ada, "continued-after-stop")


@contextlib.asynccontextmanager
async def every_browser_place_taken(nod):
    """Sessions opened straight on make run's browser until it refuses one
    more (TOO_MANY_SESSIONS), closed again on the way out."""
    channel = nod.channel("browser")
    runner = browser_pb2_grpc.BrowserServiceStub(channel)
    meta = nod.meta()
    taken: list[str] = []
    # Places held for a task of no one's: the browser doesn't know tasks.
    hold = browser_pb2.OpenSessionRequest(task_id=str(uuid.uuid4()))
    try:
        while True:
            assert len(taken) <= 256, "the browser never said it was full"
            try:
                opened = await runner.OpenSession(hold, metadata=meta)
            except grpc.aio.AioRpcError as error:
                assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, error.details()
                break
            taken.append(opened.session_id)
        yield
    finally:
        for session_id in taken:
            close = browser_pb2.CloseSessionRequest(session_id=session_id)
            await runner.CloseSession(close, metadata=meta)
        await channel.close()


async def test_a_full_browser_reads_didnt_finish_then_continue_goes_on(nod, ada):
    """Every place in nod's browser taken: the task waits for one (a short
    wait here, NOD_TASKS_BROWSER_SESSION_WAIT_S), then ends saying so in a
    person's words; once places are free, Continue signs in after all."""
    page = ada.page
    async with every_browser_place_taken(nod):
        await ada.start_task(SIGN_IN_TASK)
        await ended_with(page, "Didn't finish")
        text = await read_as_a_person(page)
        assert "too many pages open at once" in text, text
        await photograph(ada, "browser-full")

    await page.get_by_label("Tell nod what you found, then continue").fill("try again")
    await page.get_by_role("button", name="Continue").click()
    await give_code(page, await one_time_code())
    await ended_with(page, "Done")
    await read_as_a_person(page)


async def test_stop_while_nod_signs_in_reads_that_it_may_have_happened(nod, ada):
    """Stop pressed while the saved login is on its way (the shop holds its
    answer): the task reads Stopped, and the sign-in's line says it may
    have happened, not that it didn't, and offers a look."""
    page = ada.page
    # The stop closed the browser page before the entry's picture could be
    # taken: its line says no picture was kept (a 404 the page expects).
    ada.expected_console.append(re.compile(r"status of 404"))
    with shop_mode(nod.urls["shop"], "login", "hold"):
        await ada.start_task(SIGN_IN_TASK)
        signing_in = page.locator("#timeline .line", has_text="with your saved login")
        await expect(signing_in.locator(".badge")).to_have_text("Running", timeout=60_000)
        await page.get_by_role("button", name="Stop this task").click()
        await ended_with(page, "Stopped")

    await expect(signing_in.locator(".badge")).to_have_text("May have happened")
    await expect(signing_in).to_contain_text("Check there before trying again")
    await expect(page.get_by_role("button", name="Look for me")).to_be_visible()
    await signing_in.get_by_text("Details").click()
    await expect(signing_in).to_contain_text("No picture of this page was kept.")
    text = await read_as_a_person(page)
    assert "may have reached the site" in text, text
    await photograph(ada, "stopped-while-signing-in")
