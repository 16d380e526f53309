"""Email nudges (issue 32): a person who added an address, with no task page
of theirs open, gets one email per wait, however many gateway replicas run.

Two gateways beside make run's run the nudge loop, both against one local
SMTP server (aiosmtpd) with a 2 s delay, so several rounds of each pass
while the test watches. Make run's own gateway sends nothing (no SMTP host).
The email's link is the task page, which decides nothing: signed out it
sends to sign-in, signed in it shows the page, and the wait stays. A send
the server refuses is recorded as failed and not tried again."""

import asyncio
import contextlib
import re
import subprocess
import sys
import time
import uuid

import httpx
import psycopg
import pytest

from nod.tasks.v1 import tasks_pb2 as tasks
from nodkit.client import wait_until_answering
from nodtest import canaries, observed
from nodtest.claims import put_login
from nodtest.leaks import find_leaks
from nodtest.mail import SmtpStandIn, smtp_controller
from nodtest.observed import Observation
from nodtest.processes import free_port
from tests.owned_objects import WAITING_TASK, Stubs, fresh, settled_task

from .conftest import ROOT, second_gateway_env
from .web_client import csrf_of, signed_in_client

DELAY_S = 2.0
CHECK_S = 0.3
# Several rounds of both replicas after the first email.
ROUNDS_S = DELAY_S * 2 + 10 * CHECK_S
LINK = re.compile(r"https?://\S+")
# make run's demo shop login (scripts/nodrun/demo.py): the task signs in,
# then waits for the person's one-time code.
SHOP_PASSWORD = "demo-password-1"


@pytest.fixture(scope="module")
def mail():
    handler = SmtpStandIn()
    controller = smtp_controller(handler)
    yield controller.port, handler
    controller.stop()


@pytest.fixture(scope="module")
async def replicas(nod, mail, tmp_path_factory):
    """Two nudging gateways' URLs; the first is the public address."""
    port, _ = mail
    addresses = [f"127.0.0.1:{free_port()}" for _ in range(2)]
    urls = [f"http://{address}" for address in addresses]
    folder = tmp_path_factory.mktemp("nudging-gateways")
    processes, logs = [], []
    for number, address in enumerate(addresses):
        env = {
            **second_gateway_env(nod, address, f"test-nudger-{number}"),
            "NOD_GATEWAY_SMTP_HOST": "127.0.0.1",
            "NOD_GATEWAY_SMTP_PORT": str(port),
            "NOD_GATEWAY_SMTP_SECURITY": "plain",
            "NOD_GATEWAY_SMTP_FROM": "nod@example.com",
            "NOD_GATEWAY_NUDGE_DELAY_S": str(DELAY_S),
            "NOD_GATEWAY_NUDGE_CHECK_S": str(CHECK_S),
            "NOD_GATEWAY_PUBLIC_URL": urls[0],
        }
        log = (folder / f"gateway-{number}.log").open("wb")
        logs.append(log)
        processes.append(
            subprocess.Popen(  # noqa: ASYNC220 - set-up, before the loop is busy
                [sys.executable, "-m", "nod_gateway", "serve"],
                env=env,
                cwd=ROOT,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        )
    try:
        for url in urls:
            await asyncio.to_thread(wait_until_answering, f"{url}/healthz", 60)
        yield urls
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=30)
        for log in logs:
            log.close()
        for number in range(len(addresses)):
            observed.keep_file(f"log: nudging gateway {number}", folder / f"gateway-{number}.log")


async def set_address(client: httpx.AsyncClient, address: str) -> httpx.Response:
    csrf = csrf_of((await client.get("/you")).text)
    return await client.post("/you/email", data={"address": address, "csrf": csrf})


def to(handler: SmtpStandIn, address: str) -> list[dict]:
    return [m for m in handler.messages if address in m["to"]]


async def until(condition, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.1)


async def waiting_task(nod, stubs: Stubs, name: str) -> tasks.Task:
    meta = nod.meta(name)
    started = await stubs.tasks.StartTask(
        tasks.StartTaskRequest(text=WAITING_TASK, request_id=fresh("nudge")), metadata=meta
    )
    task = await settled_task(stubs, meta, started.task.id, timeout_s=120)
    assert task.state == tasks.TASK_STATE_WAITING, task
    return task


@contextlib.asynccontextmanager
async def page_open(client: httpx.AsyncClient, task_id: str):
    """The task page's live timeline, open (and read) until the block ends."""
    async with client.stream("GET", f"/tasks/{task_id}/events") as response:
        assert response.status_code == 200

        async def read() -> None:
            async for _ in response.aiter_raw():
                pass

        reading = asyncio.ensure_future(read())
        try:
            yield
        finally:
            reading.cancel()
            with contextlib.suppress(asyncio.CancelledError, httpx.HTTPError):
                await reading


@pytest.mark.timeout(300)
async def test_one_email_per_wait_only_to_the_absent(nod, mail, replicas):
    _, handler = mail
    public, other = replicas
    stubs = Stubs(nod)
    names = {role: f"nudge-{role}-{uuid.uuid4().hex[:6]}" for role in ("away", "open", "none")}
    passwords = {role: nod.add_person(name) for role, name in names.items()}
    for name in names.values():
        await put_login(
            stubs.vault, nod.meta(name), origin=nod.urls["shop"], password=SHOP_PASSWORD
        )
    addresses = {role: f"{names[role]}@example.com" for role in ("away", "open")}
    async with (
        signed_in_client(public, names["away"], passwords["away"]) as away,
        # The open page is on the other replica: what it records, both read.
        signed_in_client(other, names["open"], passwords["open"]) as present,
        signed_in_client(public, names["none"], passwords["none"]) as silent,
    ):
        for role, client in (("away", away), ("open", present)):
            saved = await set_address(client, addresses[role])
            assert saved.status_code == 303, saved.text
        assert "No address yet" in (await silent.get("/you")).text

        open_task = await stubs.tasks.StartTask(
            tasks.StartTaskRequest(text=WAITING_TASK, request_id=fresh("nudge")),
            metadata=nod.meta(names["open"]),
        )
        async with page_open(present, open_task.task.id):
            task, _, _ = await asyncio.gather(
                waiting_task(nod, stubs, names["away"]),
                waiting_task(nod, stubs, names["none"]),
                settled_task(stubs, nod.meta(names["open"]), open_task.task.id, timeout_s=120),
            )
            await until(
                lambda: to(handler, addresses["away"]), DELAY_S + 30, "no email to the absent"
            )
            await asyncio.sleep(ROUNDS_S)
            assert len(to(handler, addresses["away"])) == 1, handler.messages
            assert not to(handler, addresses["open"]), "emailed while a page was open"
            assert not [m for m in handler.messages if names["none"] in " ".join(m["to"])]

        email = to(handler, addresses["away"])[0]
        body = email["body"]
        observed.keep("nudge email", body)
        assert not find_leaks(canaries.session_canaries(), [Observation("nudge email", body)])
        assert email["subject"] == "nod needs you"
        link = f"{public}/tasks/{task.id}"
        assert LINK.findall(body) == [link], body
        assert await nudge_rows(nod, task.id) == [(task.wait.id, "sent")]
        assert "nod needs" in body

        # The link decides nothing: signed out, sign-in; signed in, the page.
        async with httpx.AsyncClient() as scanner:
            followed = await scanner.get(link, follow_redirects=False)
        assert followed.status_code == 303
        assert followed.headers["location"].startswith("/signin")
        shown = await away.get(link.removeprefix(public))
        assert shown.status_code == 200
        after = (
            await stubs.tasks.GetTask(
                tasks.GetTaskRequest(task_id=task.id), metadata=nod.meta(names["away"])
            )
        ).task
        assert after.state == tasks.TASK_STATE_WAITING
        assert after.wait.id == task.wait.id

        # The page closed: the person is away, and hears of it once.
        await until(
            lambda: to(handler, addresses["open"]), DELAY_S + 30, "no email once the page closed"
        )
        await asyncio.sleep(ROUNDS_S)
        assert len(to(handler, addresses["open"])) == 1
        assert len(to(handler, addresses["away"])) == 1


async def nudge_rows(nod, task_id: str) -> list[tuple[str, str | None]]:
    url = nod.database_url().replace("postgresql+psycopg://", "postgresql://")
    async with await psycopg.AsyncConnection.connect(url) as conn:
        cursor = await conn.execute(
            "SELECT wait_id, outcome FROM gateway.nudges WHERE task_id = %s", (task_id,)
        )
        return await cursor.fetchall()


@pytest.mark.timeout(300)
async def test_a_failed_send_is_recorded_and_not_tried_again(nod, mail, replicas):
    _, handler = mail
    stubs = Stubs(nod)
    name = f"nudge-fail-{uuid.uuid4().hex[:6]}"
    address = f"{name}@example.com"
    async with signed_in_client(replicas[1], name, nod.add_person(name)) as client:
        await put_login(
            stubs.vault, nod.meta(name), origin=nod.urls["shop"], password=SHOP_PASSWORD
        )
        assert (await set_address(client, address)).status_code == 303
        handler.mode = "reject"
        try:
            task = await waiting_task(nod, stubs, name)
            await until(lambda: to(handler, address), DELAY_S + 30, "no email tried")
            await asyncio.sleep(ROUNDS_S)
        finally:
            handler.mode = "ok"
        assert len(to(handler, address)) == 1, "a refused email was tried again"
        assert await nudge_rows(nod, task.id) == [(task.wait.id, "failed")]


BAD = [
    "",
    "not-an-address",
    "ada@localhost",
    "two@@example.com",
    "a b@example.com",
    "ada@example.com\r\nBcc: eve@example.net",
    "ada@example.com\n",
    "ada\x00@example.com",
    "x" * 250 + "@example.com",
    "ada@-example-.com",
]


async def test_bad_addresses_are_refused_in_words(nod, replicas):
    name = f"nudge-bad-{uuid.uuid4().hex[:6]}"
    async with signed_in_client(replicas[0], name, nod.add_person(name)) as client:
        assert (await set_address(client, "ada.lovelace@example.com")).status_code == 303
        for bad in BAD:
            refused = await set_address(client, bad)
            assert refused.status_code == 400, (bad, refused.status_code)
            assert 'role="alert"' in refused.text and "Nothing was changed." in refused.text
            assert "ada.lovelace@example.com" in (await client.get("/you")).text, bad
        # Without the form's CSRF token nothing changes either.
        forged = await client.post("/you/email", data={"address": "eve@example.net"})
        assert forged.status_code == 403
        page = (await client.get("/you")).text
        assert "eve@example.net" not in page
        csrf = csrf_of(page)
        removed = await client.post("/you/email/remove", data={"csrf": csrf})
        assert removed.status_code == 303
        assert "No address yet" in (await client.get("/you")).text
