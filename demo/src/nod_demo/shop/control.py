"""`/_control/*`: how tests and `make run` configure the shop and see what it
received. Never linked from the visitor pages."""

from aiohttp import web

from nod_demo.shop.state import STATE, Account, ShopState

control = web.RouteTableDef()


def state_of(request: web.Request) -> ShopState:
    return request.app[STATE]


@control.get("/_control/counts")
async def counts(request):
    return web.json_response(state_of(request).snapshot())


@control.post("/_control/accounts")
async def add_account(request):
    body = await request.json()
    state_of(request).add_account(
        Account(body["username"], body["password"], body.get("totp_seed") or None)
    )
    return web.json_response({"username": body["username"]})


@control.post("/_control/mode")
async def set_mode(request):
    body = await request.json()
    try:
        state_of(request).set_mode(body["form"], body["mode"], body.get("seconds"))
    except ValueError as error:
        raise web.HTTPBadRequest(text=str(error)) from None
    return web.json_response(state_of(request).snapshot()["modes"])


@control.post("/_control/release")
async def release(request):
    body = await request.json() if request.can_read_body else {}
    state_of(request).release(body.get("form"))
    return web.json_response({"released": body.get("form") or "all"})
