"""Card fields each in a hosted frame of their own (as Stripe Elements and
Braintree build them): EnterPrivate types each value into its own
cross-origin frame, and the page is told only how much arrived. A card
frame slow to answer is still read; one whose document never comes is left
out, and the read stands."""

import asyncio
import json
import time

import pytest
from aiohttp import web

from nod.claims.v1 import claims_pb2
from nodtest.addresses import OTHER_SITE_HOST, SITE_HOST
from nodtest.browser import bound_card, browser_open, browser_read, enter_request, poll
from nodtest.claims import CANARY_CARD, put_card

from .sites import site_on, two_origin_site

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


# A payment provider's card frame (on 127.0.0.3) that sends the number it
# holds to the provider's API on a third origin (127.0.0.4) to make a token,
# as Stripe's frame on js.stripe.com posts to api.stripe.com.
API_HOST = "127.0.0.4"
TOKEN_PAGE = """<!doctype html><title>Pay</title><h1>Pay</h1>
<iframe name="card" src="{frame}/card"></iframe>"""
TOKEN_FRAME = """<!doctype html><title>card</title>
<label for="n">Card number</label><input id="n" autocomplete="cc-number">
<label for="e">Expiry</label><input id="e" autocomplete="cc-exp">
<script>const n = document.getElementById('n');
n.addEventListener('input', () => {{ if (n.value.length === 16)
  fetch('{api}/tokens', {{method: 'POST', mode: 'no-cors', body: n.value}}); }});</script>"""


@pytest.fixture
async def tokenizing_site():
    urls: dict = {"tokens": []}

    async def page(request):
        return web.Response(text=TOKEN_PAGE.format(frame=urls["frame"]), content_type="text/html")

    async def card(request):
        return web.Response(text=TOKEN_FRAME.format(api=urls["api"]), content_type="text/html")

    async def tokens(request):
        urls["tokens"].append(await request.text())
        return web.Response(text="tok_1")

    routes = [web.get("/", page), web.get("/card", card), web.post("/tokens", tokens)]
    async with site_on((SITE_HOST, OTHER_SITE_HOST, API_HOST), routes) as (base, frame, api):
        urls.update(page=f"{base}/", frame=frame, api=api)
        yield urls


@pytest.mark.parametrize("api_named", [True, False], ids=["api-on-the-yes", "api-not-named"])
async def test_the_providers_own_api_gets_the_card_only_when_the_yes_named_it(
    browser_stub, claims_stub, vault_stub, as_person, tokenizing_site, api_named, log_tee
):
    """The card may go to the origins the person said yes to; a provider's
    API on an origin of its own is one of them only if the payment named
    it (hosted_payment_origins). Not named, the frame's request is stopped.
    The claim then ends UNCERTAIN if the entry saw the stop before it
    recorded its end; a request the last keystroke set off may come just
    after (there is no submit to wait for), and is stopped and logged all
    the same."""
    site = tokenizing_site
    card = await put_card(vault_stub, as_person)
    session_id, page = await browser_open(browser_stub, as_person, site["page"])
    kinds = {f.private_kind: f for f in page.fields}
    request = enter_request(
        session_id,
        card.id,
        claims_pb2.ENTRY_KIND_CARD,
        {"number": kinds["card_number"].ref, "expiry": kinds["card_expiry"].ref},
        "",
    )
    hosted = [site["frame"], site["api"]] if api_named else [site["frame"]]
    await bound_card(
        claims_stub, as_person, request, site["page"].rstrip("/"), hosted_payment_origins=hosted
    )

    reply = await browser_stub.EnterPrivate(request, metadata=as_person)

    assert reply.entered
    if api_named:
        assert reply.claim.state == claims_pb2.CLAIM_STATE_SUBMITTED
        await poll(lambda: site["tokens"] or None, what="the provider's API to get the token call")
        assert site["tokens"] == [CANARY_CARD]
        return

    def stopped():
        lines = [json.loads(line) for line in log_tee.lines if '"value_guard.stopped"' in line]
        return [line for line in lines if line["destination"] == site["api"]]

    (stop,) = await poll(stopped, what="the guard to stop the token call")
    assert stop["session_id"] == session_id
    # UNCERTAIN when the entry saw the stop before it recorded its end;
    # a stop a moment later (even while the end was being recorded) leaves
    # it SUBMITTED: the site got the card, the API nothing.
    if reply.claim.state == claims_pb2.CLAIM_STATE_UNCERTAIN:
        assert reply.claim.reason.startswith(f"the page tried to send the values to {site['api']}")
    else:
        assert reply.claim.state == claims_pb2.CLAIM_STATE_SUBMITTED
    await asyncio.sleep(0.3)  # anything let through would have arrived
    assert all(CANARY_CARD not in body for body in site["tokens"])
