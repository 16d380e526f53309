"""The actions a model needs on real pages besides clicking and typing:
choose an option, check a box, press Enter to send a form, scroll, go
back, and turn to a popup the site opened. Each is checked by what the
site received, or by the page read after it."""

from dataclasses import dataclass, field

import grpc
import pytest
from aiohttp import web

from nod.browser.v1 import browser_pb2 as pb
from nod_browser.app.widgets import NAMED_KEYS
from nodtest.addresses import SITE_HOST
from nodtest.browser import browser_open, field_ref, poll

from .test_sessions import refused

FORM = """<!doctype html><html><head><title>Preferences</title></head><body>
<h1>Preferences</h1>
<form method="post" action="/save">
  <label for="size">Size</label>
  <select id="size" name="size">
    <option value="s">Small</option><option value="l">Large</option>
  </select>
  <label><input type="checkbox" name="news"> Send me news</label>
  <label for="note">Note</label><input id="note" name="note">
</form>
<div style="height: 3000px"></div><p id="bottom">The end</p>
<button id="bank" onclick="window.open('/bank', 'bank', 'popup')">Confirm with your bank</button>
</body></html>"""
BANK = "<!doctype html><title>Your bank</title><h1>Confirm the payment</h1><button>Confirm</button>"
SAVED = "<!doctype html><title>Saved</title><p role='status'>Saved.</p>"


@dataclass
class Site:
    url: str = ""
    saved: list[dict] = field(default_factory=list)


@pytest.fixture
async def site():
    state = Site()

    async def form(request):
        return web.Response(text=FORM, content_type="text/html")

    async def save(request):
        state.saved.append(dict(await request.post()))
        raise web.HTTPSeeOther("/saved")

    async def saved(request):
        return web.Response(text=SAVED, content_type="text/html")

    async def bank(request):
        return web.Response(text=BANK, content_type="text/html")

    app = web.Application()
    app.add_routes(
        [
            web.get("/", form),
            web.post("/save", save),
            web.get("/saved", saved),
            web.get("/bank", bank),
        ]
    )
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, SITE_HOST, 0).start()
    state.url = f"http://{SITE_HOST}:{runner.addresses[0][1]}"
    yield state
    await runner.cleanup()


async def test_choosing_checking_and_pressing_enter_send_the_form_once(
    browser_stub, as_person, site
):
    session_id, page = await browser_open(browser_stub, as_person, f"{site.url}/")
    size, news, note = (field_ref(page, n) for n in ("size", "news", "note"))

    chosen = await browser_stub.SelectOption(
        pb.SelectOptionRequest(session_id=session_id, target=size, option="Large"),
        metadata=as_person,
    )
    assert next(f for f in chosen.page.fields if f.name == "size").value == "Large"
    await browser_stub.SetChecked(
        pb.SetCheckedRequest(session_id=session_id, target=news, checked=True), metadata=as_person
    )
    await browser_stub.TypeText(
        pb.TypeTextRequest(session_id=session_id, target=note, text="by the door"),
        metadata=as_person,
    )
    sent = await browser_stub.PressKey(
        pb.PressKeyRequest(session_id=session_id, target=note, key="Enter"), metadata=as_person
    )

    assert sent.page.url == f"{site.url}/saved"
    assert site.saved == [{"size": "l", "news": "on", "note": "by the door"}]
    back = await browser_stub.GoBack(pb.GoBackRequest(session_id=session_id), metadata=as_person)
    assert back.page.url == f"{site.url}/"
    assert len(site.saved) == 1  # going back sent nothing again


async def test_a_bad_option_or_key_is_refused_naming_the_field(browser_stub, as_person, site):
    session_id, page = await browser_open(browser_stub, as_person, f"{site.url}/")
    wrong_option = await refused(
        browser_stub.SelectOption(
            pb.SelectOptionRequest(
                session_id=session_id, target=field_ref(page, "size"), option="Huge"
            ),
            metadata=as_person,
        )
    )
    assert (wrong_option.code, wrong_option.reason) == (
        grpc.StatusCode.FAILED_PRECONDITION,
        "NO_SUCH_OPTION",
    )
    wrong_key = await refused(
        browser_stub.PressKey(
            pb.PressKeyRequest(session_id=session_id, key="Enter; rm -rf"), metadata=as_person
        )
    )
    assert (wrong_key.code, wrong_key.field) == (grpc.StatusCode.INVALID_ARGUMENT, "key")
    # Keys of the right shape Playwright doesn't know, alone or after a held one.
    for key in ("00", "Shift+00", "Enterr", "Control+Foo"):
        unknown = await refused(
            browser_stub.PressKey(
                pb.PressKeyRequest(session_id=session_id, key=key), metadata=as_person
            )
        )
        assert (unknown.code, unknown.field) == (grpc.StatusCode.INVALID_ARGUMENT, "key"), key


async def test_every_key_name_nod_accepts_is_one_playwright_presses(browser_stub, as_person, site):
    session_id, _ = await browser_open(browser_stub, as_person, f"{site.url}/")
    for key in [*sorted(NAMED_KEYS), "a", "Z", "7", "Shift+Tab", "ControlOrMeta+a"]:
        reply = await browser_stub.PressKey(
            pb.PressKeyRequest(session_id=session_id, key=key), metadata=as_person
        )
        assert reply.page.url.startswith(site.url), key


async def test_a_popup_the_site_opens_is_listed_and_can_be_turned_to(browser_stub, as_person, site):
    session_id, page = await browser_open(browser_stub, as_person, f"{site.url}/")
    bank = next(c.ref for c in page.controls if c.text.startswith("Confirm with your bank"))
    await browser_stub.Scroll(
        pb.ScrollRequest(session_id=session_id, target=bank), metadata=as_person
    )
    await browser_stub.Click(
        pb.ClickRequest(session_id=session_id, target=bank), metadata=as_person
    )

    # The popup arrives as the page settles; on a loaded machine, a while after.
    async def with_popup():
        read = await browser_stub.ReadPage(
            pb.ReadPageRequest(session_id=session_id, settle=True), metadata=as_person
        )
        return read if len(read.page.pages) > 1 else None

    settled = await poll(with_popup, timeout_s=20, what="the bank's popup")

    assert [(p.page_id, p.current) for p in settled.page.pages] == [("p0", True), ("p1", False)]
    assert settled.page.pages[1].opener_page_id == "p0"
    turned = await browser_stub.SwitchPage(
        pb.SwitchPageRequest(session_id=session_id, page_id="p1"), metadata=as_person
    )
    assert turned.page.url == f"{site.url}/bank" and "Confirm the payment" in turned.page.text
    assert [p.current for p in turned.page.pages] == [False, True]
    missing = await refused(
        browser_stub.SwitchPage(
            pb.SwitchPageRequest(session_id=session_id, page_id="p9"), metadata=as_person
        )
    )
    assert missing.reason == "NO_SUCH_PAGE"
