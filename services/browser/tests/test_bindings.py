"""G13 through a real runner and real pages: the runner tells the claims
service the top page, the frame holding the fields and where the submit
element's form goes, and a value outside its binding is refused before
anything is typed. Two small sites on 127.0.0.2 and 127.0.0.3 stand for the
site the person chose and another one; each counts what it received.

The attacks: a saved login on another site's page, a sign-in form on the
right site whose action posts to another, a login form framed from another
site, a code typed for one site entered on another, and a card on a site
the person did not say yes to. Each is refused naming its rule, the other
site receives nothing, and the same entry on the right site still works."""

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import grpc
import pytest
from aiohttp import web

from nod.claims.v1 import claims_pb2
from nodtest.browser import (
    bound_card,
    browser_open,
    browser_read,
    control_ref,
    enter_request,
    field_ref,
)
from nodtest.claims import CANARY_CARD, CANARY_PASSWORD, put_card, put_entry, put_login
from nodtest.processes import free_port

from .test_sessions import refused

REFUSED = grpc.StatusCode.FAILED_PRECONDITION


def login_page(action: str, hidden: str = "") -> str:
    return f"""<!doctype html><html><head><title>Sign in</title></head><body>
<h1>Sign in</h1>
<form method="post" action="{action}">{hidden}
  <label for="username">Email</label>
  <input id="username" name="username" type="email" autocomplete="username">
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password">
  <button type="submit">Sign in</button>
</form></body></html>"""


CODE_PAGE = """<!doctype html><html><head><title>Code</title></head><body>
<h1>Enter the code we sent you</h1>
<form method="post" action="/code">
  <label for="code">Code</label>
  <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code">
  <button type="submit">Verify</button>
</form></body></html>"""

CHECKOUT_PAGE = """<!doctype html><html><head><title>Checkout</title></head><body>
<h1>Checkout</h1>
<form method="post" action="/pay">
  <label for="number">Card number</label>
  <input id="number" name="number" autocomplete="cc-number">
  <label for="expiry">Expiry</label><input id="expiry" name="expiry" autocomplete="cc-exp">
  <button type="submit">Pay</button>
</form></body></html>"""

FRAMED_PAGE = """<!doctype html><html><head><title>Account</title></head><body>
<h1>Sign in to your account</h1>
<iframe src="{frame}" title="Sign in" width="400" height="300"></iframe>
</body></html>"""

DONE = "<!doctype html><html><head><title>Done</title></head><body><h1>Thank you</h1></body>"


@dataclass
class Site:
    url: str = ""
    # Every form post this site received: its path and its values.
    received: list[tuple[str, dict]] = field(default_factory=list)

    def values(self) -> list[str]:
        return [value for _, form in self.received for value in form.values()]


@contextlib.asynccontextmanager
async def serve(host: str, other: dict) -> AsyncIterator[Site]:
    """A site on `host`; `other` is the other site, for pages that point there."""
    site = Site()

    async def page(request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name == "login":
            # A field named "action" stands in for form.action in the DOM.
            hidden = '<input type="hidden" name="action" value="/login">'
            body = login_page(
                request.query.get("action", "/login"), hidden if "clobber" in request.query else ""
            )
        elif name == "framed":
            body = FRAMED_PAGE.format(frame=f"{other['site'].url}/login")
        else:
            body = {"code": CODE_PAGE, "checkout": CHECKOUT_PAGE}[name]
        return web.Response(text=body, content_type="text/html")

    async def post(request: web.Request) -> web.Response:
        site.received.append((request.path, dict(await request.post())))
        return web.Response(text=DONE, content_type="text/html")

    app = web.Application()
    app.add_routes([web.get("/{name}", page), web.post("/{name}", post)])
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, host, port).start()
    site.url = f"http://{host}:{port}"
    try:
        yield site
    finally:
        await runner.cleanup()


@dataclass
class Sites:
    chosen: Site  # the site the person chose the value for
    other: Site


@pytest.fixture
async def sites() -> AsyncIterator[Sites]:
    chosen_ref: dict = {}
    other_ref: dict = {}
    async with serve("127.0.0.3", other_ref) as chosen, serve("127.0.0.2", chosen_ref) as other:
        chosen_ref["site"], other_ref["site"] = chosen, other
        yield Sites(chosen, other)


def login_request(session_id, page, item_id, kind=claims_pb2.ENTRY_KIND_SAVED_LOGIN):
    return enter_request(
        session_id,
        item_id,
        kind,
        {"username": field_ref(page, "username"), "password": field_ref(page, "password")},
        control_ref(page, "Sign in"),
    )


async def nothing_typed(browser_stub, meta, session_id) -> None:
    page = await browser_read(browser_stub, meta, session_id)
    assert not any(f.filled for f in page.fields), "a value was typed"


async def test_a_saved_login_is_refused_on_another_sites_page(
    browser_stub, vault_stub, as_person, sites
):
    login = await put_login(vault_stub, as_person, origin=sites.chosen.url)
    session_id, page = await browser_open(browser_stub, as_person, f"{sites.other.url}/login")

    error = await refused(
        browser_stub.EnterPrivate(login_request(session_id, page, login.id), metadata=as_person)
    )

    assert (error.code, error.reason) == (REFUSED, "PAGE_NOT_BOUND")
    assert error.message.startswith(f"this page belongs to {sites.other.url}, not the site")
    await nothing_typed(browser_stub, as_person, session_id)
    assert sites.other.received == []
    # On its own site the same login goes in.
    session_id, page = await browser_open(browser_stub, as_person, f"{sites.chosen.url}/login")
    reply = await browser_stub.EnterPrivate(
        login_request(session_id, page, login.id), metadata=as_person
    )
    assert reply.entered and reply.claim.state == claims_pb2.CLAIM_STATE_SUBMITTED
    assert reply.claim.submit_origin == sites.chosen.url
    assert sites.chosen.received[0][1]["password"] == CANARY_PASSWORD
    assert sites.other.received == []


@pytest.mark.parametrize("clobbered", [False, True], ids=["plain", "action-field"])
async def test_a_sign_in_form_that_posts_to_another_site_is_refused(
    browser_stub, vault_stub, as_person, sites, clobbered
):
    login = await put_login(vault_stub, as_person, origin=sites.chosen.url)
    elsewhere = f"{sites.other.url}/collect"
    query = f"action={elsewhere}" + ("&clobber=1" if clobbered else "")
    session_id, page = await browser_open(
        browser_stub, as_person, f"{sites.chosen.url}/login?{query}"
    )

    error = await refused(
        browser_stub.EnterPrivate(login_request(session_id, page, login.id), metadata=as_person)
    )

    # The runner's own look refuses it first; the claims service would too
    # (SUBMISSION_NOT_BOUND), had it been asked.
    assert (error.code, error.reason) == (REFUSED, "SUBMITS_ELSEWHERE")
    assert f"sends what is typed into it to {sites.other.url}" in error.message
    await nothing_typed(browser_stub, as_person, session_id)
    assert sites.other.received == [] and sites.chosen.received == []


async def test_a_login_form_framed_from_another_site_is_refused(
    browser_stub, vault_stub, as_person, sites
):
    login = await put_login(vault_stub, as_person, origin=sites.chosen.url)
    session_id, page = await browser_open(browser_stub, as_person, f"{sites.chosen.url}/framed")
    assert {f.frame_id for f in page.fields} != {"f0"}

    error = await refused(
        browser_stub.EnterPrivate(login_request(session_id, page, login.id), metadata=as_person)
    )

    assert (error.code, error.reason) == (REFUSED, "FRAME_NOT_BOUND")
    assert sites.other.received == [] and sites.chosen.received == []


async def test_a_code_typed_for_one_site_is_refused_on_another(
    browser_stub, vault_stub, as_person, sites
):
    code = await put_entry(
        vault_stub,
        as_person,
        claims_pb2.ENTRY_KIND_ONE_TIME_CODE,
        {"code": "480193"},
        origin=sites.chosen.url,
    )

    async def enter_code(site: Site):
        session_id, page = await browser_open(browser_stub, as_person, f"{site.url}/code")
        request = enter_request(
            session_id,
            code,
            claims_pb2.ENTRY_KIND_ONE_TIME_CODE,
            {"code": field_ref(page, "code")},
            control_ref(page, "Verify"),
        )
        return session_id, browser_stub.EnterPrivate(request, metadata=as_person)

    session_id, call = await enter_code(sites.other)
    error = await refused(call)
    assert (error.code, error.reason) == (REFUSED, "PAGE_NOT_BOUND")
    assert "480193" not in error.message
    await nothing_typed(browser_stub, as_person, session_id)
    assert sites.other.received == []
    # The code was not used up: on the page it was typed for it goes in.
    _, call = await enter_code(sites.chosen)
    reply = await call
    assert reply.entered and sites.chosen.received == [("/code", {"code": "480193"})]


async def test_a_card_is_refused_on_a_site_the_person_did_not_say_yes_to(
    browser_stub, claims_stub, vault_stub, as_person, sites
):
    card = await put_card(vault_stub, as_person)

    async def pay_at(site: Site):
        session_id, page = await browser_open(browser_stub, as_person, f"{site.url}/checkout")
        request = enter_request(
            session_id,
            card.id,
            claims_pb2.ENTRY_KIND_CARD,
            {"number": field_ref(page, "number"), "expiry": field_ref(page, "expiry")},
            control_ref(page, "Pay"),
        )
        # The person said yes to paying the chosen site.
        await bound_card(claims_stub, as_person, request, sites.chosen.url)
        return session_id, browser_stub.EnterPrivate(request, metadata=as_person)

    session_id, call = await pay_at(sites.other)
    error = await refused(call)
    assert (error.code, error.reason) == (REFUSED, "PAGE_NOT_BOUND")
    assert error.message == (
        f"this page belongs to {sites.other.url}, not the shop you said yes to"
        f" ({sites.chosen.url}); nothing was entered"
    )
    await nothing_typed(browser_stub, as_person, session_id)
    assert sites.other.received == []
    _, call = await pay_at(sites.chosen)
    reply = await call
    assert reply.entered and reply.claim.state == claims_pb2.CLAIM_STATE_SUBMITTED
    assert [form["number"] for _, form in sites.chosen.received] == [CANARY_CARD]
    assert CANARY_CARD not in sites.other.values()
