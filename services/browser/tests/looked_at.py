"""A site a look goes to (on 127.0.0.2, as hosts.py serves): an account
page that shows who is signed in (from a cookie set earlier in the
session), with a form of every kind an action could work on; a page whose
scripts try every way of sending something on load; a page that shows a
private value in its field; a page that keeps a note in the browser's
local storage and one that shows it; and a form that takes a new password
and a page that shows back what it took (and, told to, sends it on to
another site in an image's address). It counts what reached it, by method
and path, and the WebSocket messages it got (counts only, never what)."""

import asyncio
import contextlib
import html
import json
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from urllib.parse import quote

from aiohttp import WSMsgType, web

from .hosts import SITE_HOST, serve_on

# What a page's scripts send, looked for in the logs (it must be in none).
SENT_BODY = "body-7781-never-logged"

ACCOUNT = """<!doctype html><title>Your account</title><h1>{who}</h1>
<form method="post" action="/orders/cancel">
<label for="note">Note</label><input id="note" name="note">
<label for="u">Username</label><input id="u" name="username" autocomplete="username">
<label for="p">Password</label><input id="p" name="password" type="password">
<label for="size">Size</label>
<select id="size" name="size"><option>S</option><option>M</option></select>
<label><input type="checkbox" name="gift"> Gift</label>
<button>Cancel order</button></form>"""

# Every way a page can send on load, each one a write the look must stop:
# a fetch, a beacon, a dedicated worker's fetch, a shared worker's (whose
# requests no route sees), a WebSocket message, and once it has loaded (its
# image, a plain GET that must still arrive), a form posted by script.
BUSY = f"""<!doctype html><title>Your orders</title><h1>Your orders</h1>
<p>Order 42: paid</p><img src="/pixel.png" alt="">
<form id="again" method="post" action="/orders/again"><input name="what" value="{SENT_BODY}"></form>
<script>
fetch('/orders/x', {{method: 'POST', body: '{SENT_BODY}'}}).catch(() => {{}});
navigator.sendBeacon('/orders/beacon', '{SENT_BODY}');
new Worker('/worker.js');
try {{ new SharedWorker('/worker.js?shared') }} catch (e) {{}}
const socket = new WebSocket('ws://' + location.host + '/socket');
socket.onopen = () => socket.send('{SENT_BODY}');
addEventListener('load', () => document.getElementById('again').submit());
</script>"""
# A form posted by script before the page has loaded (its image is slow):
# refused, that navigation must not leave the look waiting for a load.
EARLY = f"""<!doctype html><title>Your orders</title><h1>Your orders</h1>
<p>Order 42: paid</p><img src="/slow.png" alt="">
<form id="again" method="post" action="/orders/again"><input name="what" value="{SENT_BODY}"></form>
<script>document.getElementById('again').submit();</script>"""
SLOW_S = 1.0
WORKER = f"fetch('/orders/from-worker', {{method: 'POST', body: '{SENT_BODY}'}});"
# A 1x1 PNG.
PIXEL = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360606060000000050001a5f645400000000049454e44ae426082"
)

# A site that shows a private value in a password field (a "remembered"
# password), and a plain word beside it.
PRIVATE = """<!doctype html><title>Settings</title><h1>Settings</h1>
<label for="w">Word</label><input id="w" name="word" value="{word}">
<label for="p">Password</label><input id="p" name="password" type="password" value="{password}">"""

# Local storage, kept by one page and shown by another (its script, as the
# site's own pages do; the cookie is the server's).
REMEMBER = """<!doctype html><title>Remembered</title><h1>Remembered</h1>
<script>localStorage.setItem('note', {note})</script>"""
STORED = """<!doctype html><title>Stored</title><h1>Stored</h1><p id="stored"></p>
<script>document.getElementById('stored').textContent =
  'Stored: ' + (localStorage.getItem('note') || 'nothing')</script>"""

# A form for a new password (a private entry's), and a page that shows back
# what the site took: in its text and in a text field, and (with a `leak_to`
# site) in the address of an image there.
PROFILE = """<!doctype html><title>Your profile</title><h1>Your profile</h1>
<form method="post" action="/profile">
<label for="u">Username</label><input id="u" name="username" autocomplete="username">
<label for="p">Password</label><input id="p" name="password" type="password">
<button>Save</button></form>"""
RECEIVED = """<!doctype html><title>What we received</title><h1>What we received</h1>
<p>Your new password is {password} as of today.</p>
<label for="e">Echo</label><input id="e" name="echo" value="{password}">{leak}"""


@dataclass
class LookedAtSite:
    url: str = ""
    # The password /settings shows in its field (kept by the site, as a
    # remembered one is: it is in no address).
    remembered: str = ""
    # The password /profile last took, which /received shows back.
    received: str = ""
    # Another site /received sends what it took to, in an image's address.
    leak_to: str = ""
    arrived: Counter[tuple[str, str]] = field(default_factory=Counter)
    socket_messages: int = 0

    def count(self, method: str, path: str | None = None) -> int:
        return sum(n for (m, p), n in self.arrived.items() if m == method and path in (None, p))

    @property
    def total(self) -> int:
        return sum(self.arrived.values()) + self.socket_messages

    async def _any(self, request: web.Request) -> web.StreamResponse:
        if request.headers.get("Upgrade", "").lower() == "websocket":
            return await self._socket(request)
        self.arrived[(request.method, request.path)] += 1
        if (request.method, request.path) == ("POST", "/profile"):
            self.received = str((await request.post()).get("password", ""))
        await request.read()
        if request.method != "GET":
            return web.Response(text="<!doctype html><title>Done</title><h1>Done</h1>")
        return await self._page(request)

    async def _page(self, request: web.Request) -> web.StreamResponse:
        page = request.path
        if page == "/sign-in":
            response = web.Response(text="<!doctype html><title>Signed in</title>")
            response.set_cookie("who", request.query["as"], httponly=True)
            return response
        if page == "/account":
            who = request.cookies.get("who")
            shown = f"Signed in as {html.escape(who)}" if who else "Not signed in"
            return _html(ACCOUNT.format(who=shown))
        if page == "/orders":
            return _html(BUSY)
        if page == "/orders/early":
            return _html(EARLY)
        if page == "/worker.js":
            return web.Response(text=WORKER, content_type="text/javascript")
        if page in ("/pixel.png", "/slow.png"):
            if page == "/slow.png":
                await asyncio.sleep(SLOW_S)
            return web.Response(body=PIXEL, content_type="image/png")
        if page == "/settings":
            word, password = request.query.get("word", ""), self.remembered
            return _html(PRIVATE.format(word=html.escape(word), password=html.escape(password)))
        if page == "/remember":
            note = json.dumps(request.query.get("note", "")).replace("<", "\\u003c")
            return _html(REMEMBER.format(note=note))
        if page == "/stored":
            return _html(STORED)
        if page == "/profile":
            return _html(PROFILE)
        if page == "/received":
            return _html(self._received())
        return web.Response(status=404)

    def _received(self) -> str:
        leak = ""
        if self.leak_to:
            address = f"{self.leak_to}/seen?what={quote(self.received, safe='')}"
            leak = f'<img src="{html.escape(address)}" alt="">'
        return RECEIVED.format(password=html.escape(self.received), leak=leak)

    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        socket = web.WebSocketResponse()
        await socket.prepare(request)
        async for message in socket:
            if message.type in (WSMsgType.TEXT, WSMsgType.BINARY):
                self.socket_messages += 1
        return socket

    def routes(self) -> list[web.RouteDef]:
        return [web.route("*", "/{tail:.*}", self._any)]


def _html(text: str) -> web.Response:
    return web.Response(text=text, content_type="text/html")


@contextlib.asynccontextmanager
async def looked_at_site() -> AsyncIterator[LookedAtSite]:
    site = LookedAtSite()
    async with serve_on(SITE_HOST, site.routes()) as site.url:
        yield site
