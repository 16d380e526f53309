"""The submission guard over frames: a card form inside a cross-origin
iframe, posting to its own origin, is sent once, also when that origin cuts
the connection after reading it (Chromium alone sends it again)."""

import asyncio
from dataclasses import dataclass, field

import pytest
from aiohttp import web

from nod.claims.v1 import claims_pb2
from nodtest.browser import bound_card, browser_open, enter_request
from nodtest.claims import put_card

from .sites import two_origin_site

PAGE = """<!doctype html><title>Pay</title><h1>Pay</h1>
<iframe title="Card" src="{frame}/frame" width="400" height="200"></iframe>"""
FRAME = """<!doctype html><title>Card</title>
<form method="post" action="/pay"><label for="n">Card number</label>
<input id="n" name="n" autocomplete="cc-number"><button>Pay</button></form>"""


@dataclass
class Site:
    url: str = ""
    frame_url: str = ""
    posts: list[int] = field(default_factory=list)  # the lengths of what arrived


@pytest.fixture
async def cutting_site():
    """The page on 127.0.0.2, its card frame on 127.0.0.3 (another site),
    which reads the card and cuts the connection without an answer."""
    site = Site()

    async def page(request):
        return web.Response(text=PAGE.format(frame=site.frame_url), content_type="text/html")

    async def frame(request):
        return web.Response(text=FRAME, content_type="text/html")

    async def pay(request):
        site.posts.append(len((await request.post()).get("n", "")))
        if request.transport is not None:
            request.transport.abort()
        return web.Response(status=204)  # to no one: the connection is gone

    routes = [web.get("/", page), web.get("/frame", frame), web.post("/pay", pay)]
    async with two_origin_site(routes) as (site.url, site.frame_url):
        yield site


async def test_a_frames_submission_cut_off_by_its_origin_is_never_sent_again(
    browser_stub, claims_stub, vault_stub, as_person, cutting_site
):
    card = await put_card(vault_stub, as_person)
    session_id, page = await browser_open(browser_stub, as_person, f"{cutting_site.url}/")
    (number,) = [f for f in page.fields if f.private_kind == "card_number"]
    (pay,) = [c for c in page.controls if c.text == "Pay"]
    assert number.frame_id == pay.frame_id != "f0"
    request = enter_request(
        session_id, card.id, claims_pb2.ENTRY_KIND_CARD, {"number": number.ref}, pay.ref
    )
    await bound_card(claims_stub, as_person, request, cutting_site.url)

    reply = await browser_stub.EnterPrivate(request, metadata=as_person, timeout=60)

    assert reply.entered
    assert reply.claim.state in (claims_pb2.CLAIM_STATE_SUBMITTED, claims_pb2.CLAIM_STATE_UNCERTAIN)
    await asyncio.sleep(1.0)  # room for a resend to arrive, were one made
    assert cutting_site.posts == [16]
