"""Receiving a form submission: count it first, then answer as the form's
mode says. `drop` aborts the connection after the body was read and `hold`
keeps the request open, so the sender cannot know whether it arrived. `echo`
sends the visitor to a page that shows back everything it received, as a
careless site's error page does."""

import asyncio
from urllib.parse import urlencode

from aiohttp import web

from nod_demo.shop.state import ShopState


class Dropped(Exception):
    """The connection was cut on purpose; there is nobody to answer."""


async def receive(request: web.Request, state: ShopState, form: str) -> dict[str, str]:
    posted = await request.post()
    fields = {name: str(value) for name, value in posted.items()}
    state.record(form, fields)
    mode = state.modes[form]
    if mode.mode == "echo":
        raise web.HTTPSeeOther(f"/echo?{urlencode(fields)}")
    if mode.mode == "drop":
        if request.transport is not None:
            request.transport.abort()
        raise Dropped(form)
    if mode.mode == "hold":
        released = state.release_event(form)
        try:
            await asyncio.wait_for(released.wait(), mode.seconds)
        except TimeoutError:
            pass
    elif mode.mode == "slow":
        await asyncio.sleep(mode.seconds or 1.0)
    return fields


@web.middleware
async def dropped_connections(request: web.Request, handler):
    try:
        return await handler(request)
    except Dropped:
        # The transport is gone; answer nothing and let aiohttp close quietly.
        return web.Response(status=204)
