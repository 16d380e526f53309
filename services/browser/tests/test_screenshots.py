"""A page's picture (Screenshot, the person's view of a step): every private
field and every value the session entered that the page shows back is
painted over. Proved the way the issue asks: the same steps taken with two
different canary passwords make byte-identical pictures, on the sign-in
page (the password in its field) and on a page that shows everything it
received back in its text, a field, a link and a notice; while two
different plain words typed into a field that is not private make two
different pictures (the comparison can fail)."""

import html
import io
from types import SimpleNamespace
from urllib.parse import quote

import pytest
from aiohttp import web

from nod.browser.v1 import browser_pb2 as pb
from nod.claims.v1 import claims_pb2
from nodtest.browser import browser_open, control_ref, enter_request, field_ref
from nodtest.demo import SHOP_USERNAME

from .sites import two_origin_site

# Two canaries of the same characters in another order: the page gives
# each the same room, so what shows of it is exactly what the paint covers.
CANARIES = ("Qz-pw-381925-kv", "Qz-pw-925183-kv")
PNG = b"\x89PNG\r\n\x1a\n"
MASK_RGB = (0x4B, 0x55, 0x63)


async def typed_password(vault_stub, meta, shop, password: str) -> str:
    entry = await vault_stub.PutPrivateEntry(
        claims_pb2.PutPrivateEntryRequest(
            task_id="task-1",
            kind=claims_pb2.ENTRY_KIND_TYPED_PASSWORD,
            fields={"username": SHOP_USERNAME, "password": password},
            origin=shop.url,
        ),
        metadata=meta,
    )
    return entry.id


async def picture(stub, meta, session_id: str) -> pb.ScreenshotResponse:
    return await stub.Screenshot(pb.ScreenshotRequest(session_id=session_id), metadata=meta)


def painted_pixels(image: bytes) -> int:
    """How many pixels have the mask's colour (Pillow is in the dev tools)."""
    from PIL import Image

    with Image.open(io.BytesIO(image)) as decoded:
        pixels = decoded.convert("RGB").get_flattened_data()
        return sum(1 for pixel in pixels if pixel == MASK_RGB)


async def sign_in_as(stub, vault_stub, meta, shop, password: str, *, press: bool):
    """A session on the sign-in page with `password` entered (and sent,
    with `press`): the picture after it."""
    entry_id = await typed_password(vault_stub, meta, shop, password)
    session_id, page = await browser_open(stub, meta, f"{shop.url}/login")
    request = enter_request(
        session_id,
        entry_id,
        claims_pb2.ENTRY_KIND_TYPED_PASSWORD,
        {"username": field_ref(page, "username"), "password": field_ref(page, "password")},
        control_ref(page, "Sign in") if press else "",
    )
    await stub.EnterPrivate(request, metadata=meta)
    return await picture(stub, meta, session_id)


async def test_a_password_in_its_field_is_painted_over(
    browser_stub, vault_stub, as_person, shop_site, log_tee
):
    first, second = [
        await sign_in_as(browser_stub, vault_stub, as_person, shop_site, canary, press=False)
        for canary in CANARIES
    ]

    assert first.image.startswith(PNG) and first.media_type == "image/png"
    assert (first.width, first.height) == (1280, 720)
    assert first.image == second.image
    assert painted_pixels(first.image) > 0
    for canary in CANARIES:
        assert canary not in log_tee.text()


async def test_what_a_site_shows_back_is_painted_over_in_every_form(
    browser_stub, vault_stub, as_person, shop_site, log_tee
):
    shop_site.state.set_mode("login", "echo")
    first, second = [
        await sign_in_as(browser_stub, vault_stub, as_person, shop_site, canary, press=True)
        for canary in CANARIES
    ]

    assert first.image == second.image
    # The notice, the list, the source, the kept field and the link: a lot of paint.
    assert painted_pixels(first.image) > 5_000
    for canary in CANARIES:
        assert canary not in log_tee.text()


async def test_different_plain_text_makes_a_different_picture(browser_stub, as_person, shop_site):
    """The comparison above can fail: text that is not private shows."""
    pictures = []
    for typed in ("plain-381925", "plain-925183"):
        session_id, page = await browser_open(browser_stub, as_person, f"{shop_site.url}/login")
        await browser_stub.TypeText(
            pb.TypeTextRequest(
                session_id=session_id, target=field_ref(page, "username"), text=typed
            ),
            metadata=as_person,
        )
        pictures.append((await picture(browser_stub, as_person, session_id)).image)

    assert pictures[0] != pictures[1]
    # Nothing private on the page besides the empty password field.
    assert painted_pixels(pictures[0]) < 20_000


async def test_a_closed_session_has_no_picture(browser_stub, as_person):
    import grpc

    session_id, _ = await browser_open(browser_stub, as_person)
    await browser_stub.CloseSession(
        pb.CloseSessionRequest(session_id=session_id), metadata=as_person
    )
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await picture(browser_stub, as_person, session_id)
    assert raised.value.code() == grpc.StatusCode.NOT_FOUND


# A sign-in page with a card field in a frame of another origin (filled by
# the frame itself), and whose answer shows the password back inside a
# frame (of its own origin: the runner lets no request take an entered
# value to another), each frame drawn with a border and padding, a little
# way in. Every page hides Playwright's mask overlay with its own CSS.
HIDE_MASK = "<style>x-pw-glass { display: none !important; }</style>"
FRAMED = """<!doctype html><title>Sign in</title>{hide}<h1>Sign in</h1>
<form method="post" action="/in"><label for="u">Username</label><input id="u" name="username">
<label for="p">Password</label><input id="p" name="password" type="password">
<button>Sign in</button></form>
<iframe title="card" src="{frame}/card?n={number}" style="{box}"></iframe>"""
ANSWER = """<!doctype html><title>Signed in</title>{hide}<h1>Welcome</h1>
<iframe title="shown" src="/shown?v={value}" style="{box}"></iframe>
<p>Below the frame.</p>"""
BOX = "border: 7px solid #888; padding: 9px; margin-left: 33px; width: 420px; height: 90px"
CARD = '<label for="c">Card number</label><input id="c" autocomplete="cc-number" value="{n}">'
SHOWN = "<p>Signed in. We got your password: <b>{v}</b>, thank you.</p>"


@pytest.fixture
async def framed_site():
    urls = {}

    async def page(request):
        number = quote(request.query.get("n", ""))
        body = FRAMED.format(frame=urls["frame"], number=number, box=BOX, hide=HIDE_MASK)
        return web.Response(text=body, content_type="text/html")

    async def signed_in(request):
        posted = await request.post()
        value = quote(str(posted.get("password", "")))
        body = ANSWER.format(value=value, box=BOX, hide=HIDE_MASK)
        return web.Response(text=body, content_type="text/html")

    async def card(request):
        return web.Response(
            text=HIDE_MASK + CARD.format(n=html.escape(request.query["n"])),
            content_type="text/html",
        )

    async def shown(request):
        return web.Response(
            text=HIDE_MASK + SHOWN.format(v=html.escape(request.query["v"])),
            content_type="text/html",
        )

    routes = [
        web.get("/", page),
        web.post("/in", signed_in),
        web.get("/card", card),
        web.get("/shown", shown),
    ]
    async with two_origin_site(routes) as (base, frame):
        urls.update(page=base, frame=frame)
        yield urls


async def test_frames_are_painted_over_where_they_are_drawn_whatever_the_pages_css(
    browser_stub, vault_stub, as_person, framed_site
):
    site = SimpleNamespace(url=framed_site["page"])
    cards, answers = [], []
    for canary, number in zip(CANARIES, ("4242424242424242", "5555555555554444"), strict=True):
        entry_id = await typed_password(vault_stub, as_person, site, canary)
        session_id, page = await browser_open(browser_stub, as_person, f"{site.url}/?n={number}")
        cards.append(await picture(browser_stub, as_person, session_id))
        request = enter_request(
            session_id,
            entry_id,
            claims_pb2.ENTRY_KIND_TYPED_PASSWORD,
            {"username": field_ref(page, "username"), "password": field_ref(page, "password")},
            control_ref(page, "Sign in"),
        )
        await browser_stub.EnterPrivate(request, metadata=as_person)
        answers.append(await picture(browser_stub, as_person, session_id))

    # The card field in the other origin's frame, whatever it holds.
    assert cards[0].image == cards[1].image
    # The password, shown back in a frame.
    assert answers[0].image == answers[1].image
    assert painted_pixels(answers[0].image) > 1_000
