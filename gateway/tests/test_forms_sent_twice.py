"""A form posted twice is one change: each of the vault's adding forms, the
private form and Continue carries a request id made when the page is shown,
so a browser's resubmit, a double click or a resend after a lost answer
saves one item, stores one entry, starts one run. Counted where the
services keep them: the person's vault items, the claims service's log of
stored entries and what the demo shop received, the task's runs. A kept
page sent again with other values is told so, and a page shown afresh saves
again."""

import asyncio
import re
import uuid

import httpx

from nod.claims.v1 import claims_pb2, claims_pb2_grpc
from nod.tasks.v1 import tasks_pb2, tasks_pb2_grpc
from nodtest import canaries
from nodtest.leaks import shows

from .outside import SIGN_IN_TASK, counts_since
from .shop import one_time_code, shop_counts
from .web_client import csrf_of, signed_in_client

# A loaded machine runs the demo task slowly: generous, never tight.
PATIENCE_S = 120
ENDED = (
    tasks_pb2.TASK_STATE_DONE,
    tasks_pb2.TASK_STATE_FAILED,
    tasks_pb2.TASK_STATE_STOPPED,
    tasks_pb2.TASK_STATE_INTERRUPTED,
)


def request_id_of(html: str, suffix: str) -> str:
    found = re.search(rf'name="request_id" value="([0-9a-f]+-{suffix})"', html)
    assert found, f"no {suffix} request id in the page"
    return found.group(1)


async def twice_at_once(client: httpx.AsyncClient, path: str, data: dict) -> list[int]:
    answers = await asyncio.gather(client.post(path, data=data), client.post(path, data=data))
    return sorted(answer.status_code for answer in answers)


async def items_of(nod, person: str) -> list[claims_pb2.VaultItem]:
    stub = claims_pb2_grpc.VaultServiceStub(nod.channel("claims"))
    return list(
        (await stub.ListItems(claims_pb2.ListItemsRequest(), metadata=nod.meta(person))).items
    )


async def task_of(nod, task_id: str) -> tasks_pb2.Task:
    stub = tasks_pb2_grpc.TasksServiceStub(nod.channel("tasks"))
    request = tasks_pb2.GetTaskRequest(task_id=task_id)
    return (await stub.GetTask(request, metadata=nod.meta())).task


async def until(nod, task_id: str, check) -> tasks_pb2.Task:
    deadline = asyncio.get_running_loop().time() + PATIENCE_S
    while True:
        task = await task_of(nod, task_id)
        if check(task):
            return task
        assert asyncio.get_running_loop().time() < deadline, f"never came: {task}"
        await asyncio.sleep(0.2)


def asks_for_the_code(task: tasks_pb2.Task) -> bool:
    return (
        task.state == tasks_pb2.TASK_STATE_WAITING
        and task.wait.kind == tasks_pb2.WAIT_KIND_PRIVATE_FORM
    )


async def start_sign_in(client: httpx.AsyncClient, nod) -> str:
    page = (await client.get("/tasks")).text
    started = await client.post(
        "/tasks",
        data={
            "csrf": csrf_of(page),
            "text": SIGN_IN_TASK,
            "request_id": request_id_of(page, "text"),
        },
    )
    assert started.status_code == 303, started.text
    task_id = started.headers["location"].rsplit("/", 1)[1]
    await until(nod, task_id, asks_for_the_code)
    return task_id


async def test_a_vault_form_posted_twice_saves_one_item(nod):
    name = f"twice-{uuid.uuid4().hex[:6]}"
    async with signed_in_client(nod.gateway_url, name, nod.add_person(name)) as client:
        page = (await client.get("/vault")).text
        csrf = csrf_of(page)
        password = canaries.register(f"pw-{uuid.uuid4().hex}", "password")
        login = {
            "csrf": csrf,
            "request_id": request_id_of(page, "login"),
            "label": "Library",
            "origin": "https://library.example",
            "username": "reader@example.org",
            "password": password,
        }
        card = {
            "csrf": csrf,
            "request_id": request_id_of(page, "card"),
            "label": "Travel",
            "number": canaries.register("4000056655665556", "card number"),
            "expiry": "09/31",
            "holder_name": "",
        }
        # A resubmit after the answer, and a double click.
        for _ in range(2):
            saved = await client.post("/vault/logins", data=login)
            assert saved.status_code == 303, saved.text
        assert await twice_at_once(client, "/vault/cards", card) == [303, 303]
        assert [item.label for item in await items_of(nod, name)] == ["Library", "Travel"]

        # The kept page sent again after an edit: the first one counted.
        edited = await client.post("/vault/logins", data={**login, "label": "Library, again"})
        assert edited.status_code == 409
        assert "This form was already sent once" in edited.text
        assert password not in edited.text

        # A page shown afresh is a new form: it saves.
        fresh = (await client.get("/vault")).text
        again = await client.post(
            "/vault/logins", data={**login, "request_id": request_id_of(fresh, "login")}
        )
        assert again.status_code == 303, again.text
    assert [item.label for item in await items_of(nod, name)] == ["Library", "Travel", "Library"]


async def test_the_private_form_posted_twice_stores_one_entry_entered_once(nod):
    shop = nod.urls["shop"]
    async with signed_in_client(nod.gateway_url, "ada", nod.web_password()) as client:
        task_id = await start_sign_in(client, nod)
        page = (await client.get(f"/tasks/{task_id}")).text
        code = canaries.register(await one_time_code(), "one-time code")
        form = {"csrf": csrf_of(page), "request_id": request_id_of(page, "form"), "value": code}
        before = shop_counts(shop)

        answers = await twice_at_once(client, f"/tasks/{task_id}/forms/{_form_id(page)}", form)
        # The first post answers the form; the other is either the same
        # answer or told the task no longer waits for it.
        assert answers[0] == 303 and answers[1] in (303, 409), answers
        done = await until(nod, task_id, lambda t: t.state == tasks_pb2.TASK_STATE_DONE)
        assert done.run == 1
    assert counts_since(shop, before)["otp"] == 1
    stored = [
        line
        for line in nod.log_text().splitlines()
        if "vault.private_entry_saved" in line and task_id in line
    ]
    assert len(stored) == 1, stored
    assert not shows(code, nod.log_text())


def _form_id(page: str) -> str:
    found = re.search(r'action="/tasks/[0-9a-f-]+/forms/([^"]+)"', page)
    assert found, "no private form in the page"
    return found.group(1)


async def test_continue_posted_twice_starts_one_run(nod):
    async with signed_in_client(nod.gateway_url, "ada", nod.web_password()) as client:
        task_id = await start_sign_in(client, nod)
        page = (await client.get(f"/tasks/{task_id}")).text
        code = canaries.register(await one_time_code(), "one-time code")
        form = {"csrf": csrf_of(page), "request_id": request_id_of(page, "form"), "value": code}
        given = await client.post(f"/tasks/{task_id}/forms/{_form_id(page)}", data=form)
        assert given.status_code == 303, given.text
        await until(nod, task_id, lambda t: t.state == tasks_pb2.TASK_STATE_DONE)

        page = (await client.get(f"/tasks/{task_id}")).text
        go_on = {
            "csrf": csrf_of(page),
            "request_id": request_id_of(page, "continue"),
            "text": "Anything left to do?",
        }
        assert await twice_at_once(client, f"/tasks/{task_id}/continue", go_on) == [303, 303]
        second = await until(nod, task_id, lambda t: t.run == 2 and t.state in ENDED)
        # The browser's resubmit once that run has ended starts no third.
        again = await client.post(f"/tasks/{task_id}/continue", data=go_on)
        assert again.status_code == 303, again.text
    task = await task_of(nod, task_id)
    assert (task.state, task.run) == (second.state, 2)
