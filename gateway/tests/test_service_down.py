"""The gateway with one service down. A second gateway process runs beside
make run's, reaching each service through a cable the test can cut: the
page then says which service nod can't reach and that nothing was done
(503), or, for a change that was on its way, that it may have happened
(web/errors.py: a state-changing call answered UNAVAILABLE may have
happened, as nodkit.client.NodRpcError.may_have_happened says). Never a
stack trace. A service that goes down while a task page is open: the live
timeline says so, and picks up again once it is back; a yes pressed while
the approvals service is down sends nothing, and says so."""

import asyncio
import json
import re
import subprocess
import sys
import time
import urllib.request
import uuid

import pytest
from playwright.async_api import Page, expect

from nodkit.client import wait_until_answering
from nodtest.processes import free_port

from .cable import Cable
from .conftest import ARTIFACTS, ROOT, second_gateway_env
from .people import ENDED, Person

NOTE = "Send a note to the demo app: hello from nod"
# What the person reads for each service (the gateway's own names for them).
LABELS = {
    "tasks": "the tasks service",
    "claims": "the vault (claims service)",
    "approvals": "the approvals service",
    "payments": "the payments service",
}
# What must never reach a page: a stack trace, exception names, the gRPC
# error's own text (addresses, "failed to connect").
LEAKS = re.compile(
    r"Traceback|File \"|Error\b|Exception|grpc|StatusCode|UNAVAILABLE|failed to connect"
    r"|Connection refused|ipv4:|127\.0\.0\.1:\d+"
)
# A page that answers 503 is a console error the test asked for; so is the
# live timeline's EventSource finding a 503 where its stream was.
UNREACHABLE_CONSOLE = re.compile(r"status of 503|EventSource")


class SideGateway:
    def __init__(self, url: str, cables: dict[str, Cable], process: subprocess.Popen) -> None:
        self.url = url
        self.cables = cables
        self.process = process


class PersonAt(Person):
    """A person whose browser talks to the side gateway."""

    def __init__(self, gateway_url: str, *args) -> None:
        super().__init__(*args)
        self.gateway_url = gateway_url

    @property
    def url(self) -> str:
        return self.gateway_url


@pytest.fixture(scope="module")
async def side(nod, tmp_path_factory):
    cables = {name: await Cable(nod.addresses[name]).mend() for name in LABELS}
    address = f"127.0.0.1:{free_port()}"
    env = {
        **second_gateway_env(nod, address, "test-side-gateway"),
        **{f"NOD_{name.upper()}_ADDR": cable.address for name, cable in cables.items()},
    }
    log = (tmp_path_factory.mktemp("side-gateway") / "gateway.log").open("wb")
    process = subprocess.Popen(  # noqa: ASYNC220 - set-up, before the loop is busy
        [sys.executable, "-m", "nod_gateway", "serve"],
        env=env,
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://{address}"
    try:
        await asyncio.to_thread(wait_until_answering, f"{url}/healthz", 60)
        yield SideGateway(url, cables, process)
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()
        for cable in cables.values():
            await cable.cut()


async def person_at(side: SideGateway, nod, chromium, request, name: str, password: str):
    person = PersonAt(side.url, nod, chromium, name, password, ARTIFACTS / request.node.name)
    await person.open()
    await person.sign_in()
    person.expected_console.append(UNREACHABLE_CONSOLE)
    return person


@pytest.fixture
async def ada_at_side(side, nod, chromium, request):
    person = await person_at(side, nod, chromium, request, "ada", nod.web_password())
    yield person
    for cable in side.cables.values():
        if cable.is_cut:
            await cable.mend()
    await person.close()


async def reachable_again(person: Person, path: str = "/tasks", timeout_s: float = 60) -> None:
    """Until the gateway's channel has reconnected to the mended service."""
    deadline = time.monotonic() + timeout_s
    while (await person.context.request.get(path)).status != 200:  # type: ignore[union-attr]
        assert time.monotonic() < deadline, f"{path} still failing after the service came back"
        await asyncio.sleep(0.5)


def assert_no_leak(html: str) -> None:
    found = LEAKS.search(html)
    assert found is None, f"the page shows {found.group(0)!r}"


async def start_note(person: Person) -> tuple[str, Page]:
    task_id = await person.start_task(NOTE)
    page = person.page
    assert page is not None
    card = page.get_by_role("heading", name="Run this app action?")
    await expect(card).to_be_visible(timeout=60_000)
    return task_id, page


@pytest.mark.timeout(600)
async def test_each_page_says_which_service_it_cannot_reach(side, ada_at_side):
    ada = ada_at_side
    task_id, page = await start_note(ada)
    pages = [
        ("tasks", "/tasks"),
        ("tasks", f"/tasks/{task_id}"),
        ("approvals", f"/tasks/{task_id}"),
        ("approvals", "/decisions"),
        ("approvals", "/apps"),
        ("claims", "/vault"),
        ("claims", "/history"),
        ("payments", "/history"),
    ]
    for service, path in pages:
        cable = side.cables[service]
        await cable.cut()
        try:
            answer = await page.goto(path)
            assert answer is not None
            label = LABELS[service]
            html = await page.content()
            assert answer.status == 503, f"{path} with {service} down: {answer.status}\n{html}"
            alert = page.get_by_role("alert")
            await expect(alert.get_by_role("heading")).to_have_text("Not reachable right now")
            await expect(alert).to_contain_text(f"nod can't reach {label} right now")
            await expect(alert).to_contain_text("nothing was done")
            assert_no_leak(html)
            await ada.shot(f"{service}-down{path.replace('/', '-')[:40]}")
        finally:
            await cable.mend()
        await reachable_again(ada, path)

    # Back: the task is where it was, and the person says yes to end it.
    await page.goto(f"/tasks/{task_id}")
    await page.get_by_role("button", name="Yes, run it").click()
    await expect(page.locator(".state-line .badge")).to_have_text(ENDED, timeout=90_000)


@pytest.mark.timeout(300)
async def test_a_change_sent_to_a_service_that_is_down_may_have_happened(
    side, nod, chromium, request
):
    name = f"cal-{uuid.uuid4().hex[:6]}"
    person = await person_at(side, nod, chromium, request, name, nod.add_person(name))
    page = person.page
    assert page is not None
    tasks_cable = side.cables["tasks"]
    try:
        await page.goto("/tasks")
        await tasks_cable.cut()
        # The start form, sent while the tasks service is down: the gateway
        # can't know whether the start arrived, and says so.
        async with page.expect_response(lambda r: r.request.method == "POST") as posted:
            await page.get_by_role("button", name=NOTE).click()
        assert (await posted.value).status == 503
        alert = page.get_by_role("alert")
        await expect(alert.get_by_role("heading")).to_have_text("This may have happened")
        await expect(alert).to_contain_text("the tasks service")
        await expect(alert).to_contain_text("check before trying again")
        assert_no_leak(await page.content())
        await person.shot("start-while-tasks-down")

        # Stop all is on every page, this one too: the same answer.
        async with page.expect_response(lambda r: r.request.method == "POST") as posted:
            await page.get_by_role("button", name="Stop all").click()
        assert (await posted.value).status == 503
        await expect(alert.get_by_role("heading")).to_have_text("This may have happened")
        await expect(alert).to_contain_text("the tasks service")
        assert_no_leak(await page.content())
        await person.shot("stop-all-while-tasks-down")
    finally:
        await tasks_cable.mend()
    await reachable_again(person)
    # Checking, as the page asks: the start never reached the service.
    await page.goto("/tasks")
    await expect(page.get_by_text("No tasks yet.")).to_be_visible()
    await person.close()


def app_messages(app_url: str) -> int:
    with urllib.request.urlopen(f"{app_url}/_control/received", timeout=5) as reply:
        return len(json.load(reply))


@pytest.mark.timeout(400)
async def test_a_service_that_goes_down_while_the_task_page_is_open(side, nod, ada_at_side):
    ada = ada_at_side
    task_id, page = await start_note(ada)
    # The page's live timeline is open before the tasks service goes.
    async with page.expect_response(re.compile(r"/events")):
        await page.reload()
    await side.cables["tasks"].cut()
    live = page.locator("#live")
    await expect(live).to_contain_text("nod can't reach the tasks service right now")
    await expect(live).to_contain_text("nothing was done")
    await ada.shot("live-timeline-tasks-down")
    await side.cables["tasks"].mend()
    # Once the stream is back, the problem it showed is gone.
    await expect(live).to_have_text("", timeout=30_000)
    await reachable_again(ada, f"/tasks/{task_id}")

    # The approvals service goes while the card is shown. The press reads
    # the decision before sending it (routes/deciding.py), and that read
    # finds the service gone: nothing was sent, and the card's place says so.
    sent_before = app_messages(nod.urls["app"])
    await side.cables["approvals"].cut()
    card = page.locator(".decision")
    async with page.expect_response(re.compile(r"/decide$")) as decided:
        await card.get_by_role("button", name="Yes, run it").click()
    assert (await decided.value).headers.get("x-nod-status") == "503"
    alert = page.get_by_role("alert")
    await expect(alert.get_by_role("heading")).to_have_text("Not reachable right now")
    await expect(alert).to_contain_text("nod can't reach the approvals service right now")
    await expect(alert).to_contain_text("nothing was done")
    # The task page shows the demo app's address in the action's details:
    # only the message is checked here.
    assert_no_leak(await alert.inner_html())
    await ada.shot("decide-while-approvals-down")
    await side.cables["approvals"].mend()
    await reachable_again(ada, f"/tasks/{task_id}")

    # Back: the card still asks (nothing was sent), the person says yes,
    # and the open page follows the task to its end live.
    async with page.expect_response(re.compile(r"/events")):
        await page.goto(f"/tasks/{task_id}")
    assert app_messages(nod.urls["app"]) == sent_before
    await page.get_by_role("button", name="Yes, run it").click()
    await expect(page.locator(".state-line .badge")).to_have_text(ENDED, timeout=90_000)
    await expect(page.locator("#timeline .line.task-ended")).to_have_count(1)
    assert app_messages(nod.urls["app"]) == sent_before + 1
