"""Every route of the gateway, from its app's route table, against everyone
who may knock: the owner of the objects in its path, another person, no
session, a session cookie nod never made, and, for a post, no CSRF token, a
wrong one, or another site's origin.

Another person gets 404 for the owner's object and sees none of the owner's
things on their own pages; without a session a page redirects to sign-in
(401 for the live timeline and for a post); a post without the right token
or from another site is 403. None of these changes anything of the owner's,
and then the owner's same request succeeds. A route the tables here don't
classify fails the test."""

import contextlib
import uuid

import httpx
import pytest

from nod.tasks.v1 import tasks_pb2 as tasks
from tests.owned_objects import (
    WAITING_TASK,
    Kind,
    OwnersObjects,
    Stubs,
    fresh,
    settled_task,
)

from .routes_table import FORMS, Route, every_route
from .web_client import csrf_of, signed_in_client

# Routes anyone may use (sign-in checks its own binding cookie).
PUBLIC = {
    Route("MOUNT", "/static"),
    Route("GET", "/healthz"),
    Route("GET", "/signin"),
    Route("POST", "/signin"),
}
STEP = "step"
# Path parameter -> the owner's object it names. A step is a step of the
# task waiting on its form (the task the same path names).
PARAMS: dict[str, Kind | str] = {
    "task_id": Kind.TASK,
    "approval_id": Kind.APPROVAL,
    "payment_id": Kind.PAYMENT,
    "form_id": Kind.WAIT,
    "question_id": Kind.WAIT,
    "step": STEP,
    "account_id": Kind.ACCOUNT,
    "item_id": Kind.ITEM,
}
# The owner's answer when it isn't the plain one (a page 200, a post 303):
# the home page sends on to the task list; the waiting task asked no
# question and its first step is not uncertain, so the owner is told so
# (nor looked at: there is no look's picture to show).
OWNER_ANSWERS = {
    Route("GET", "/tasks/{task_id}/steps/{step}/look"): 404,
    Route("GET", "/"): 303,
    Route("POST", "/tasks/{task_id}/questions/{question_id}"): 409,
    Route("POST", "/tasks/{task_id}/steps/{step}/resolve"): 409,
    Route("POST", "/tasks/{task_id}/steps/{step}/look"): 409,
}
# Answered by the owner last: the form ends the waiting task's wait, Stop
# stops all the owner's tasks, signing out ends the session.
LAST = [
    Route("POST", "/tasks/{task_id}/forms/{form_id}"),
    Route("POST", "/stop"),
    Route("POST", "/signout"),
]
FORGED = "forged-" + "x" * 40


def test_every_route_is_classified():
    routes = every_route()
    unknown_params = {p for r in routes for p in r.params if p not in PARAMS}
    assert not unknown_params, f"add to PARAMS: {unknown_params}"
    posts = {r.path for r in routes if r.method == "POST" and r not in PUBLIC}
    assert posts == set(FORMS), "every post needs the owner's form in FORMS"
    assert {r.method for r in routes} <= {"GET", "POST", "MOUNT"}
    assert set(LAST) | set(OWNER_ANSWERS) | PUBLIC <= set(routes)


@pytest.fixture(scope="module")
async def the_owner(nod):
    stubs, meta = Stubs(nod), nod.meta("ada")
    started = await stubs.tasks.StartTask(
        tasks.StartTaskRequest(text=WAITING_TASK, request_id=fresh("wait")), metadata=meta
    )
    waiting = await settled_task(stubs, meta, started.task.id, timeout_s=120)
    assert waiting.wait.kind == tasks.WAIT_KIND_PRIVATE_FORM, waiting
    holder = fresh("runner")
    async with signed_in_client(nod.gateway_url, "ada", nod.web_password()) as client:
        yield stubs, meta, waiting, holder, client


@contextlib.asynccontextmanager
async def another_person(nod):
    name = f"bea-{uuid.uuid4().hex[:6]}"
    async with signed_in_client(nod.gateway_url, name, nod.add_person(name)) as client:
        yield client


async def fill(route: Route, owners: OwnersObjects) -> str:
    values = {}
    # The wait first: it decides which task the path names.
    for param in sorted(route.params, key=lambda p: PARAMS[p] not in (Kind.WAIT, STEP)):
        kind = PARAMS[param]
        if kind == STEP:
            await owners.get(Kind.WAIT)
            values[param] = "1"
        else:
            values[param] = await owners.get(kind)  # type: ignore[arg-type]
    return route.filled(values)


async def answer(client: httpx.AsyncClient, route: Route, path: str, form=None, **kwargs) -> int:
    if route.method == "GET":
        # The live timeline streams: its status is all that is read.
        async with client.stream("GET", path, follow_redirects=False, **kwargs) as response:
            return response.status_code
    response = await client.post(path, data=form or {}, follow_redirects=False, **kwargs)
    return response.status_code


async def csrf(client: httpx.AsyncClient) -> str:
    return csrf_of((await client.get("/tasks")).text)


def ordered(routes: list[Route]) -> list[Route]:
    return sorted(routes, key=lambda r: LAST.index(r) if r in LAST else -1)


async def test_every_route_answers_everyone_as_it_should(nod, the_owner):
    stubs, meta, waiting, holder, owner = the_owner
    # Things of the owner's that no page of another person's may show.
    everything = OwnersObjects(stubs, meta, waiting, holder)
    for kind in (Kind.TASK, Kind.APPROVAL, Kind.PAYMENT, Kind.ITEM, Kind.CARD, Kind.WAIT):
        await everything.get(kind)
    owner_csrf = await csrf(owner)
    checked = []
    async with (
        another_person(nod) as them,
        httpx.AsyncClient(base_url=nod.gateway_url, timeout=30) as nobody,
        httpx.AsyncClient(
            base_url=nod.gateway_url, timeout=30, cookies={"nod_session": FORGED}
        ) as forger,
    ):
        their_csrf = await csrf(them)
        for route in ordered([r for r in every_route() if r not in PUBLIC]):
            owners = OwnersObjects(stubs, meta, waiting, holder)
            path = await fill(route, owners)
            before = await owners.snapshot(), await everything.snapshot()
            form = FORMS[route.path]() if route.method == "POST" else None

            code = await answer(them, route, path, {**(form or {}), "csrf": their_csrf})
            if route.params:
                assert code == 404, (route, "another person", code)
            else:
                assert code < 500, (route, "another person", code)
            if route.method == "GET" and not route.params:
                page = (await them.get(path)).text
                shown = [i for i in everything.made.values() if i in page]
                assert not shown, (route, shown)

            signed_out = 401 if route.method == "POST" or path.endswith("/events") else 303
            assert await answer(nobody, route, path, form) == signed_out, route
            assert await answer(forger, route, path, form) == signed_out, route
            if route.method == "POST":
                assert await answer(owner, route, path, form) == 403, (route, "no csrf")
                wrong = {**form, "csrf": their_csrf}  # type: ignore[dict-item]
                assert await answer(owner, route, path, wrong) == 403, (route, "wrong csrf")
                cross_site = {"origin": "https://elsewhere.example"}
                right = {**form, "csrf": owner_csrf}  # type: ignore[dict-item]
                assert await answer(owner, route, path, right, headers=cross_site) == 403, route

            assert (await owners.snapshot(), await everything.snapshot()) == before, route

            expected = OWNER_ANSWERS.get(route, 200 if route.method == "GET" else 303)
            right = {**(form or {}), "csrf": owner_csrf}
            assert await answer(owner, route, path, right) == expected, (route, "owner")
            # A form given sets the waiting task going: let it come to rest
            # before the next route compares what the owner has.
            await settled_task(stubs, meta, waiting.id)
            checked.append(route)
    assert len(checked) == len(every_route()) - len(PUBLIC)
