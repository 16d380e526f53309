"""The pages a visitor (or nod's browser) uses."""

import re
import time

import pyotp
from aiohttp import web

from nod_demo.shop import pages
from nod_demo.shop.state import STATE, ShopState
from nod_demo.shop.submissions import receive

COOKIE = "shop_visitor"
DECLINED_CARDS = frozenset({"4000000000000002"})
routes = web.RouteTableDef()
# What the lamp costs, as its pages and the order list write it.
TOTAL = "€25.00"


def state_of(request: web.Request) -> ShopState:
    return request.app[STATE]


def html(body: str, status: int = 200) -> web.Response:
    return web.Response(text=body, status=status, content_type="text/html")


def see_other(location: str, token: str | None = None) -> web.Response:
    response = web.Response(status=303, headers={"Location": location})
    if token:
        response.set_cookie(COOKIE, token, httponly=True, samesite="Lax")
    return response


def luhn_valid(digits: str) -> bool:
    total = 0
    for position, char in enumerate(reversed(digits)):
        n = int(char) * (2 if position % 2 else 1)
        total += n - 9 if n > 9 else n
    return total % 10 == 0


@routes.get("/")
async def home(request):
    return html(pages.home())


@routes.get("/login")
async def login_page(request):
    return html(pages.login())


@routes.post("/login")
async def login(request):
    state = state_of(request)
    fields = await receive(request, state, "login")
    account = state.accounts.get(fields.get("username", ""))
    if account is None or account.password != fields.get("password"):
        return html(pages.login("Wrong username or password"), status=401)
    token = state.new_visitor_token()
    if account.totp_seed:
        state.awaiting_code[token] = account.username
        return see_other("/otp", token)
    state.signed_in[token] = account.username
    return see_other("/account", token)


@routes.get("/otp")
async def otp_page(request):
    if request.cookies.get(COOKIE) not in state_of(request).awaiting_code:
        raise web.HTTPSeeOther("/login")
    return html(pages.one_time_code())


@routes.post("/otp")
async def otp(request):
    state = state_of(request)
    fields = await receive(request, state, "otp")
    token = request.cookies.get(COOKIE, "")
    username = state.awaiting_code.get(token)
    if username is None:
        raise web.HTTPSeeOther("/login")
    seed = state.accounts[username].totp_seed
    step = matching_step(seed, fields.get("code", ""))
    # A code used before is refused, as RFC 6238 (5.2) asks of a site.
    if step is None or step <= state.last_code_step.get(username, -1):
        return html(pages.one_time_code("Wrong code, try again"), status=401)
    state.last_code_step[username] = step
    del state.awaiting_code[token]
    state.signed_in[token] = username
    return see_other("/account")


@routes.get("/pin")
async def pin_page(request):
    return html(pages.pin())


@routes.get("/account")
async def account(request):
    username = state_of(request).signed_in.get(request.cookies.get(COOKIE, ""))
    if username is None:
        raise web.HTTPSeeOther("/login")
    return html(pages.account(username))


@routes.get("/product")
async def product(request):
    return html(pages.product())


@routes.get("/checkout")
async def checkout_page(request):
    return html(pages.checkout())


@routes.post("/checkout")
async def checkout(request):
    state = state_of(request)
    fields = await receive(request, state, "checkout")
    number = re.sub(r"[ -]", "", fields.get("card_number", ""))
    well_formed = (
        number.isdigit()
        and 12 <= len(number) <= 19
        and luhn_valid(number)
        and re.fullmatch(r"(0[1-9]|1[0-2])/\d{2}", fields.get("expiry", ""))
        and re.fullmatch(r"\d{3,4}", fields.get("cvc", ""))
    )
    if not well_formed:
        return html(pages.checkout("Check the card details"), status=400)
    if number in DECLINED_CARDS:
        return html(pages.checkout("Card declined"), status=402)
    visitor = state.signed_in.get(request.cookies.get(COOKIE, ""), "guest")
    return see_other(f"/orders/{state.new_order(visitor, TOTAL)}")


@routes.get("/echo")
async def echo(request):
    return html(pages.echo(request.query_string, dict(request.query)), status=400)


@routes.get("/orders")
async def orders(request):
    """The signed-in visitor's orders, each with its total and the time it
    was placed (what nod's "look for me" reads after an uncertain payment)."""
    state = state_of(request)
    username = state.signed_in.get(request.cookies.get(COOKIE, ""))
    if username is None:
        raise web.HTTPSeeOther("/login")
    return html(pages.orders(state.orders_of(username)))


@routes.get("/orders/{reference}")
async def order(request):
    reference = request.match_info["reference"]
    if reference not in state_of(request).orders:
        raise web.HTTPNotFound()
    return html(pages.order(reference))


def matching_step(seed: str | None, code: str) -> int | None:
    """The time step (30 s) a code belongs to, one step of drift allowed."""
    if not seed:
        return None
    totp = pyotp.TOTP(seed)
    now = int(time.time()) // totp.interval
    for step in (now, now - 1, now + 1):
        if totp.at(step * totp.interval) == code:
            return step
    return None
