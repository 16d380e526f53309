"""Pages of our own for the patterns no installable application offers
(docs/REAL_SITES.md): hosted card fields from a second origin, a one-time
code over six boxes, a cookie banner over the form, a sign-in inside a
shadow root, a bank's confirmation in a popup, a two-step sign-in, floating
labels over their fields, a code in styled boxes, and a code typed into one
transparent input laid over drawn boxes.

Two aiohttp applications, started in-process: the shop on
http://127.0.0.2:<port> and the card host on http://127.0.0.3:<port> (a
different site, as a payment provider's frame is, so Chromium runs it as an
out-of-process frame). Each page counts what it received, keeping the
lengths and hashes of the values, never the values, and the shop shows the
counts at /_control/counts like the demo shop."""

import secrets
import socket
import time
from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import urlencode

import pyotp
import pytest
from aiohttp import web

from nod_demo.shop.state import fingerprint
from nodtest import pattern_pages as pages
from nodtest.addresses import OTHER_SITE_HOST, SITE_HOST
from nodtest.claims import CANARY_PASSWORD

USERNAME = "ada"
TOTP_SEED = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
DECLINED_CARD_SUFFIX = "0002"  # like the demo shop and real gateways' test cards
SESSION = "patterns_session"
FORMS = (
    "hosted_card",
    "six_box_code",
    "banner_login",
    "shadow_login",
    "card_3ds",
    "bank_confirm",
    "two_step_username",
    "two_step_password",
    "floating_login",
    "styled_code",
    "drawn_code",
)


@dataclass
class PatternState:
    """What the pages received and decided, and who is signed in."""

    username: str = USERNAME
    password: str = CANARY_PASSWORD
    totp_seed: str = TOTP_SEED
    counts: Counter = field(default_factory=Counter)
    outcomes: Counter = field(default_factory=Counter)
    last: dict[str, dict[str, dict]] = field(default_factory=dict)
    sessions: dict[str, str] = field(default_factory=dict)
    transactions: dict[str, str] = field(default_factory=dict)
    last_code_step: int = -1

    def record(self, form: str, fields: dict[str, str]) -> None:
        self.counts[form] += 1
        self.last[form] = {name: fingerprint(value) for name, value in fields.items()}

    def decide(self, form: str, outcome: str) -> str:
        self.outcomes[f"{form}:{outcome}"] += 1
        return outcome

    def accepts_code(self, code: str) -> bool:
        """A TOTP code for now (one step either side), each step once."""
        totp = pyotp.TOTP(self.totp_seed)
        now = int(time.time()) // totp.interval
        for step in (now - 1, now, now + 1):
            if step > self.last_code_step and secrets.compare_digest(totp.generate_otp(step), code):
                self.last_code_step = step
                return True
        return False

    def snapshot(self) -> dict:
        return {
            "counts": {form: self.counts[form] for form in FORMS},
            "outcomes": dict(self.outcomes),
            "last": self.last,
        }


STATE = web.AppKey("patterns", PatternState)
CARD_HOST = web.AppKey("card_origin", str)
SHOP = web.AppKey("shop_origin", str)
shop = web.RouteTableDef()
card_host = web.RouteTableDef()


def html(body: str, status: int = 200) -> web.Response:
    return web.Response(text=body, status=status, content_type="text/html")


def see_other(location: str) -> web.Response:
    return web.Response(status=303, headers={"Location": location})


async def received(request: web.Request, form: str) -> dict[str, str]:
    fields = {name: str(value) for name, value in (await request.post()).items()}
    request.app[STATE].record(form, fields)
    return fields


def sign_in(request: web.Request, response: web.Response) -> web.Response:
    token = secrets.token_urlsafe(18)
    request.app[STATE].sessions[token] = request.app[STATE].username
    response.set_cookie(SESSION, token, httponly=True, samesite="Lax")
    return response


def right_password(state: PatternState, fields: dict[str, str]) -> bool:
    return fields.get("username") == state.username and secrets.compare_digest(
        fields.get("password", ""), state.password
    )


@shop.get("/")
async def index(request):
    return html(pages.index())


@shop.get("/account")
async def account(request):
    username = request.app[STATE].sessions.get(request.cookies.get(SESSION, ""))
    if username is None:
        return see_other("/")
    return html(pages.signed_in(username))


@shop.post("/sign-out")
async def sign_out(request):
    request.app[STATE].sessions.pop(request.cookies.get(SESSION, ""), None)
    return see_other("/")


@shop.get("/checkout")
async def checkout(request):
    return html(pages.checkout(request.app[CARD_HOST], request.app[SHOP]))


@card_host.get("/fields")
async def card_fields(request):
    return html(pages.card_fields(request.app[SHOP]))


@card_host.post("/fields/submit")
async def card_submit(request):
    fields = await received(request, "hosted_card")
    number = "".join(ch for ch in fields.get("cardnumber", "") if ch.isdigit())
    declined = len(number) < 12 or number.endswith(DECLINED_CARD_SUFFIX)
    status = request.app[STATE].decide("hosted_card", "declined" if declined else "paid")
    return html(pages.card_verdict(status, request.app[SHOP]))


@shop.get("/code")
async def code_page(request):
    return html(pages.six_box_code())


@shop.post("/code")
async def code_submit(request):
    fields = await received(request, "six_box_code")
    state = request.app[STATE]
    if not state.accepts_code(fields.get("code", "")):
        state.decide("six_box_code", "refused")
        return html(pages.six_box_code("That code is not right. Try again."), status=401)
    state.decide("six_box_code", "accepted")
    return sign_in(request, see_other("/account"))


@shop.get("/banner-login")
async def banner_login_page(request):
    return html(pages.banner_login())


@shop.post("/banner-login")
async def banner_login(request):
    fields = await received(request, "banner_login")
    if not right_password(request.app[STATE], fields):
        request.app[STATE].decide("banner_login", "refused")
        return html(pages.banner_login("Wrong username or password."), status=401)
    request.app[STATE].decide("banner_login", "signed_in")
    return sign_in(request, see_other("/account"))


@shop.get("/shadow-login")
async def shadow_login_page(request):
    return html(pages.shadow_login())


@shop.post("/shadow-login")
async def shadow_login(request):
    fields = await received(request, "shadow_login")
    if not right_password(request.app[STATE], fields):
        request.app[STATE].decide("shadow_login", "refused")
        return web.json_response({"error": "Wrong username or password."}, status=401)
    request.app[STATE].decide("shadow_login", "signed_in")
    return sign_in(request, web.json_response({"next": "/account"}))


@shop.get("/pay-3ds")
async def pay_page(request):
    transaction = secrets.token_hex(8)
    request.app[STATE].transactions[transaction] = "waiting"
    return html(pages.pay_with_bank(transaction))


@shop.post("/pay-3ds")
async def pay_card(request):
    """The card, posted into the bank's popup: the bank challenges it."""
    fields = await received(request, "card_3ds")
    state = request.app[STATE]
    transaction = fields.get("txn", "")
    if state.transactions.get(transaction) != "waiting":
        raise web.HTTPConflict(text="This payment was already sent.")
    state.transactions[transaction] = state.decide("card_3ds", "challenged")
    return html(pages.bank_challenge(transaction))


@shop.get("/3ds/status")
async def bank_status(request):
    """What the shop's page asks until the bank has answered."""
    status = request.app[STATE].transactions.get(request.query.get("txn", ""), "unknown")
    return web.json_response({"status": status})


@shop.post("/3ds/challenge")
async def bank_answer(request):
    fields = await received(request, "bank_confirm")
    state = request.app[STATE]
    if state.transactions.get(fields.get("txn", "")) != "challenged":
        raise web.HTTPConflict(text="This payment was already answered.")
    status = "confirmed" if fields.get("action") == "confirm" else "cancelled"
    state.transactions[fields["txn"]] = state.decide("bank_confirm", status)
    return html(pages.bank_verdict(status))


@shop.get("/two-step")
async def two_step_page(request):
    return html(pages.two_step_username())


@shop.post("/two-step")
async def two_step_username(request):
    fields = await received(request, "two_step_username")
    if fields.get("username") != request.app[STATE].username:
        request.app[STATE].decide("two_step_username", "unknown")
        return html(pages.two_step_username("We could not find that account."), status=404)
    request.app[STATE].decide("two_step_username", "known")
    return see_other("/two-step/password?" + urlencode({"username": fields["username"]}))


@shop.get("/two-step/password")
async def two_step_password_page(request):
    return html(pages.two_step_password(request.query.get("username", "")))


@shop.post("/two-step/password")
async def two_step_password(request):
    fields = await received(request, "two_step_password")
    if not right_password(request.app[STATE], fields):
        request.app[STATE].decide("two_step_password", "refused")
        page = pages.two_step_password(fields.get("username", ""), "Wrong password. Try again.")
        return html(page, status=401)
    request.app[STATE].decide("two_step_password", "signed_in")
    return sign_in(request, see_other("/account"))


@shop.get("/floating-login")
async def floating_login_page(request):
    return html(pages.floating_login())


@shop.post("/floating-login")
async def floating_login(request):
    fields = await received(request, "floating_login")
    if not right_password(request.app[STATE], fields):
        request.app[STATE].decide("floating_login", "refused")
        return html(pages.floating_login("Wrong username or password."), status=401)
    request.app[STATE].decide("floating_login", "signed_in")
    return sign_in(request, see_other("/account"))


@shop.get("/styled-code")
async def styled_code_page(request):
    return html(pages.styled_code())


@shop.get("/drawn-code")
async def drawn_code_page(request):
    return html(pages.drawn_code())


async def code_step(request: web.Request, form: str, page) -> web.Response:
    fields = await received(request, form)
    state = request.app[STATE]
    if not state.accepts_code(fields.get("code", "")):
        state.decide(form, "refused")
        return html(page("That code is not right. Try again."), status=401)
    state.decide(form, "accepted")
    return sign_in(request, see_other("/account"))


@shop.post("/styled-code")
async def styled_code(request):
    return await code_step(request, "styled_code", pages.styled_code)


@shop.post("/drawn-code")
async def drawn_code(request):
    return await code_step(request, "drawn_code", pages.drawn_code)


@shop.get("/_control/counts")
async def counts(request):
    return web.json_response(request.app[STATE].snapshot())


@dataclass
class PatternSites:
    """The running shop (url) and card host (card_url), sharing one state."""

    url: str
    card_url: str
    state: PatternState
    runners: list[web.AppRunner]

    def count(self, form: str) -> int:
        return self.state.counts[form]

    def outcome(self, form: str, outcome: str) -> int:
        return self.state.outcomes[f"{form}:{outcome}"]

    async def close(self) -> None:
        for runner in self.runners:
            await runner.cleanup()


def _listening_socket(host: str) -> socket.socket:
    sock = socket.socket()
    sock.bind((host, 0))
    return sock


async def _serve(app: web.Application, sock: socket.socket) -> web.AppRunner:
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
    await runner.setup()
    await web.SockSite(runner, sock).start()
    return runner


async def start_patterns(state: PatternState | None = None) -> PatternSites:
    """Both applications; their sockets are bound first, so each knows the
    other's origin before it starts."""
    state = state or PatternState()
    shop_socket, card_socket = _listening_socket(SITE_HOST), _listening_socket(OTHER_SITE_HOST)
    shop_origin = f"http://{SITE_HOST}:{shop_socket.getsockname()[1]}"
    card_origin = f"http://{OTHER_SITE_HOST}:{card_socket.getsockname()[1]}"
    apps = []
    for routes in (shop, card_host):
        app = web.Application()
        app.add_routes(routes)
        app[STATE], app[SHOP], app[CARD_HOST] = state, shop_origin, card_origin
        apps.append(app)
    runners = [await _serve(apps[0], shop_socket), await _serve(apps[1], card_socket)]
    return PatternSites(shop_origin, card_origin, state, runners)


@pytest.fixture
async def pattern_sites():
    sites = await start_patterns()
    yield sites
    await sites.close()
