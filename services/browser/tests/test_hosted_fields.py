"""Card fields each in a hosted frame of their own (as Stripe Elements and
Braintree build them): EnterPrivate types each value into its own
cross-origin frame, and the page is told only how much arrived. A card
frame slow to answer is still read; one whose document never comes is left
out, and the read stands."""

import asyncio
import time

import pytest
from aiohttp import web

from nod.claims.v1 import claims_pb2
from nodtest.addresses import OTHER_SITE_HOST
from nodtest.browser import bound_card, browser_open, browser_read, enter_request, poll
from nodtest.claims import CANARY_CARD, put_card

from .sites import two_origin_site

# The page counts what each frame tells it it holds (lengths, never values).
PAGE = """<!doctype html><title>Pay</title><h1>Pay</h1>
<iframe name="number" src="{frame}/field?kind=number"></iframe>
<iframe name="expiry" src="{frame}/field?kind=expiry"></iframe>
<iframe name="cvc" src="{frame}/field?kind=cvc"></iframe>
<p id="got"></p>
<script>const got = {{}};
addEventListener('message', (e) => {{ got[e.data.kind] = e.data.length;
  document.getElementById('got').textContent =
    Object.keys(got).sort().map((k) => k + ' ' + got[k]).join(', '); }});</script>"""
FIELD = {
    "number": '<label for="f">Card number</label><input id="f" autocomplete="cc-number">',
    "expiry": '<input id="f" name="exp" autocomplete="cc-exp" aria-label="Expiry date">',
    "cvc": '<input id="f" aria-label="CVC">',
}
FIELD_PAGE = """<!doctype html><title>{kind}</title>{field}
<script>document.getElementById('f').addEventListener('input', (e) =>
  parent.postMessage({{kind: '{kind}', length: e.target.value.length}}, '*'));</script>"""


@pytest.fixture
async def hosted_site():
    urls = {}

    async def page(request):
        return web.Response(text=PAGE.format(frame=urls["frame"]), content_type="text/html")

    async def field(request):
        kind = request.query["kind"]
        body = FIELD_PAGE.format(kind=kind, field=FIELD[kind])
        return web.Response(text=body, content_type="text/html")

    async with two_origin_site([web.get("/", page), web.get("/field", field)]) as (base, frame):
        urls.update(page=f"{base}/", frame=frame)
        yield urls


async def test_each_card_value_goes_into_its_own_hosted_frame(
    browser_stub, claims_stub, vault_stub, as_person, hosted_site
):
    card = await put_card(vault_stub, as_person)
    code = await vault_stub.PutPrivateEntry(
        claims_pb2.PutPrivateEntryRequest(
            task_id="task-1",
            kind=claims_pb2.ENTRY_KIND_SECURITY_CODE,
            fields={"security_code": "737"},
        ),
        metadata=as_person,
    )
    session_id, page = await browser_open(browser_stub, as_person, hosted_site["page"])
    kinds = {f.private_kind: f for f in page.fields}
    assert set(kinds) == {"card_number", "card_expiry", "card_security_code"}
    frames = {f.frame_id: f for f in page.frames}
    assert len({f.frame_id for f in kinds.values()}) == 3
    assert {frames[f.frame_id].title for f in kinds.values()} == {"number", "expiry", "cvc"}
    assert all(
        frames[f.frame_id].origin.startswith(f"http://{OTHER_SITE_HOST}:") for f in kinds.values()
    )
    request = enter_request(
        session_id,
        card.id,
        claims_pb2.ENTRY_KIND_CARD,
        {
            "number": kinds["card_number"].ref,
            "expiry": kinds["card_expiry"].ref,
            "security_code": kinds["card_security_code"].ref,
        },
        "",
        companion_entry_id=code.id,
    )
    await bound_card(claims_stub, as_person, request, hosted_site["page"].rstrip("/"))

    reply = await browser_stub.EnterPrivate(request, metadata=as_person)

    assert reply.entered and reply.claim.state == claims_pb2.CLAIM_STATE_SUBMITTED

    async def told():
        after = await browser_read(browser_stub, as_person, session_id)
        told_all = all(part in after.text for part in ("cvc", "expiry", "number"))
        return after if told_all else None

    after = await poll(told, what="the frames telling the page")
    assert "cvc 3, expiry 5, number 16" in after.text
    filled = [f for f in after.fields if f.private_kind.startswith("card_")]
    assert len(filled) == 3 and all(f.filled and f.masked and not f.value for f in filled)
    assert CANARY_CARD not in str(after)


# A card field's frame that goes busy for BUSY_MS when the test says (as a
# loaded machine's renderer answers late), and, added once the page loaded,
# a frame whose server never answers (an ad that hangs).
BUSY_MS = 3500
SLOW_PAGE = """<!doctype html><title>Pay</title><h1>Pay</h1>
<iframe name="number" src="{frame}/busy"></iframe>
<script>addEventListener('load', () => {{ const ad = document.createElement('iframe');
  ad.name = 'ad'; ad.src = '{frame}/hung'; document.body.append(ad); }});</script>"""
BUSY_FIELD = f"""<!doctype html><title>number</title>{FIELD["number"]}
<script>const poll = async () => {{
  if (await (await fetch('/busy-now')).text() === 'yes') {{
    const end = Date.now() + {BUSY_MS}; while (Date.now() < end) {{}}
  }} else setTimeout(poll, 50); }};
addEventListener('load', poll);</script>"""


@pytest.fixture
async def slow_frames_site():
    busy_now = asyncio.Event()
    never = asyncio.Event()
    urls: dict = {"busy_now": busy_now}

    async def page(request):
        return web.Response(text=SLOW_PAGE.format(frame=urls["frame"]), content_type="text/html")

    async def busy(request):
        return web.Response(text=BUSY_FIELD, content_type="text/html")

    async def asked(request):
        return web.Response(text="yes" if busy_now.is_set() else "no")

    async def hung(request):
        await never.wait()
        return web.Response(text="")

    routes = [
        web.get("/", page),
        web.get("/busy", busy),
        web.get("/busy-now", asked),
        web.get("/hung", hung),
    ]
    async with two_origin_site(routes) as (base, frame):
        urls.update(page=f"{base}/", frame=frame)
        yield urls
        never.set()  # the hung request ends, so the server can stop


async def test_a_card_frame_slow_to_answer_is_read_and_a_hung_one_left_out(
    browser_stub, as_person, slow_frames_site
):
    session_id, _ = await browser_open(browser_stub, as_person, slow_frames_site["page"])
    slow_frames_site["busy_now"].set()
    await asyncio.sleep(0.5)  # the card frame's renderer is busy for the next 3 s
    began = time.monotonic()
    page = await browser_read(browser_stub, as_person, session_id)
    took = time.monotonic() - began

    kinds = {f.private_kind for f in page.fields}
    assert "card_number" in kinds, page.fields
    # The ad's document never came: it is left out, and the read stands.
    assert {f.title for f in page.frames if f.parent_frame_id} == {"number"}, page.frames
    # Within the read's own bound (the runner's 5 s action timeout here).
    assert took < 5.0, took
