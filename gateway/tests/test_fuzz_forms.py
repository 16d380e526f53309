"""Hostile input to every form of the gateway, from its app's route table:
signed in, with a valid CSRF token, each post gets hypothesis-drawn values
(NUL bytes, megabyte strings, unicode controls, internal URLs, card numbers
and the canary password, ...) in its fields, fields left out, fields it
doesn't know, and hostile ids in its path.

Whatever was sent: never a 5xx, no stack trace, no card number and nothing
typed into a secret field in the page; a refusal (400) says why in words."""

import asyncio
import re
import urllib.parse
import uuid

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nod.tasks.v1 import tasks_pb2
from tests.hostile import CARD_NUMBERS, HOSTILE_TEXT, card_numbers_in, trace_in
from tests.owned_objects import Kind, OwnersObjects, Stubs, fresh

from .routes_table import FORMS, Route, every_route

EXAMPLES_PER_FORM = 8
# Not fuzzed here: signing in is public and counts failures per address
# (fuzzing it would lock this machine's address out of every other test),
# and signing out ends the session the fuzzing runs in. The route matrix
# covers both.
LEFT_OUT = {"/signin", "/signout"}
# Fields whose value must never come back in a page.
SECRET_FIELDS = {"password", "number", "token", "value", "security_code"}
# Path parameters -> the fuzzing person's own object of that kind.
OWN = {
    "task_id": Kind.TASK,
    "approval_id": Kind.APPROVAL,
    "payment_id": Kind.PAYMENT,
    "account_id": Kind.ACCOUNT,
    "item_id": Kind.ITEM,
}
# A refusal's words: the problem box (a title, then its sentence), a saved
# form's refusal, or the sign-in form's alert line.
SAYS_WHY = re.compile(r'role="alert"[^>]*>\s*(<h2>[^<]+</h2>\s*)?(<p>)?\s*[^<\s][^<]+')
PATH_VALUES = ("..", "\x00", "x" * 5000, "' OR 1=1 --", "\u202e", "-1", "99999999999999999999")
POSTS = [r for r in every_route() if r.method == "POST"]
FUZZED = [r for r in POSTS if r.path not in LEFT_OUT]


def test_every_form_is_fuzzed_or_left_out_for_a_reason():
    # A new post fails here until FORMS says what it reads (or it is left
    # out, saying why).
    assert {r.path for r in POSTS} == {r.path for r in FUZZED} | LEFT_OUT
    assert {r.path for r in FUZZED} <= set(FORMS)


async def _own_objects(nod, person: str) -> dict[Kind, str]:
    owners = OwnersObjects(Stubs(nod), nod.meta(person), tasks_pb2.Task(), fresh("runner"))
    for kind in set(OWN.values()):
        await owners.get(kind)
    return owners.made


def _signed_in(base_url: str, name: str, password: str) -> httpx.Client:
    client = httpx.Client(base_url=base_url, timeout=60)
    form = client.get("/signin")
    binding = re.search(r'name="binding" value="([^"]+)"', form.text).group(1)  # type: ignore[union-attr]
    signed = client.post(
        "/signin", data={"binding": binding, "name": name, "password": password, "next": "/tasks"}
    )
    assert signed.status_code == 303, signed.text
    return client


@pytest.fixture(scope="module")
def fuzzer(nod):
    name = f"fuzz-{uuid.uuid4().hex[:6]}"
    client = _signed_in(nod.gateway_url, name, nod.add_person(name))
    csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/tasks").text).group(1)  # type: ignore[union-attr]
    own = asyncio.run(_own_objects(nod, name))
    yield client, csrf, own
    client.close()


def path_strategy(route: Route, own: dict[Kind, str]) -> st.SearchStrategy:
    parts = {}
    for param in route.params:
        mine = [own[OWN[param]]] if param in OWN else []
        mine += ["1"] if param == "step" else []
        parts[param] = st.sampled_from(mine + list(PATH_VALUES))
    return st.fixed_dictionaries(parts).map(
        lambda values: route.filled({k: urllib.parse.quote(v, safe="") for k, v in values.items()})
    )


def form_strategy(route: Route) -> st.SearchStrategy:
    value = st.one_of(st.sampled_from(HOSTILE_TEXT), st.text(max_size=30))
    known = {name: st.one_of(st.none(), value) for name in FORMS[route.path]()}
    extra = st.dictionaries(st.text(min_size=1, max_size=20), value, max_size=2)
    return st.tuples(st.fixed_dictionaries(known), extra).map(
        lambda parts: {
            **{k: v for k, v in parts[1].items() if k != "csrf"},
            **{k: v for k, v in parts[0].items() if v is not None},
        }
    )


def check_page(route: Route, form: dict[str, str], response: httpx.Response) -> None:
    where = (route.path, response.status_code)
    assert response.status_code < 500, where
    body = response.content
    assert not trace_in(body), where
    assert not card_numbers_in([response.text]), (where, card_numbers_in([response.text]))
    # A value also sent in a plain field may come back as that field's (a
    # refused form keeps its plain fields): that is not the secret shown.
    plain = {value for key, value in form.items() if key not in SECRET_FIELDS}
    for name in SECRET_FIELDS & set(form):
        if len(form[name].strip()) >= 8 and form[name] not in plain:
            assert form[name].encode() not in body, (where, name)
    if response.status_code == 400:
        assert SAYS_WHY.search(response.text), (where, "a refusal says why in words")


def test_a_card_number_in_any_field_of_a_saved_form_is_not_shown_back(fuzzer):
    # A refused vault or app form comes back with its plain fields filled
    # in again; one holding a card number (refused for it, as a label or a
    # host) must come back empty.
    client, csrf, _own = fuzzer
    card = CARD_NUMBERS[0]
    for route in FUZZED:
        good = FORMS[route.path]()
        if route.params or not good:
            continue
        for name in good:
            # Each post a form of its own: a form's request id saves once.
            fresh = FORMS[route.path]()
            response = client.post(route.path, data={**fresh, name: card, "csrf": csrf})
            assert response.status_code in (303, 400), (route.path, name, response.status_code)
            assert card not in response.text, (route.path, name)


@pytest.mark.parametrize("route", FUZZED, ids=[r.path for r in FUZZED])
@settings(
    max_examples=EXAMPLES_PER_FORM,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
@given(data=st.data())
def test_hostile_form_values_never_break_a_page(fuzzer, route, data):
    client, csrf, own = fuzzer
    path = data.draw(path_strategy(route, own), label="path")
    form = data.draw(form_strategy(route), label="form")
    response = client.post(path, data={**form, "csrf": csrf}, follow_redirects=False)
    check_page(route, form, response)
