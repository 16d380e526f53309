"""A hostile site that shows back what it received dressed up so that an exact
match misses it (echoes.py): reversed, in another case, one character per
element, base64, hex, URL- or HTML-encoded, as character codes, a card
number's digits six or more at a time. After a real EnterPrivate the site
echoes each value in every such form, in its text, a notice, a heading, a
link, a field, an option, its title and a frame; the page read holds none of
them, and still holds the page's own words and the username."""

import base64
import html
import re
from urllib.parse import quote

import pytest
from aiohttp import web

from nod.browser.v1 import browser_pb2 as pb
from nod.claims.v1 import claims_pb2
from nodtest.browser import (
    bound_card,
    browser_open,
    browser_read,
    control_ref,
    enter_request,
    field_ref,
)
from nodtest.claims import put_card

from .echoes import CARD_ECHOES, TEXT_ECHOES
from .test_shown_back import strings_of

USERNAME = "ada@example.com"
PASSWORD = "Tr0ub4dor&3-xkcd"
CODE = "482913"
# Not the canary card: its digits are all different runs of six.
CARD = "4000056655665556"
SECURITY_CODE = "737"
RECEIVED = "We received your details"

FORMS = {
    "login": """<form method="post" action="/echo">
      <input name="username" autocomplete="username" aria-label="Email">
      <input name="password" type="password" aria-label="Password">
      <button>Sign in</button></form>""",
    "code": """<form method="post" action="/echo">
      <input name="code" autocomplete="one-time-code" aria-label="Code">
      <button>Verify</button></form>""",
    "card": """<form method="post" action="/echo">
      <input name="number" autocomplete="cc-number" aria-label="Card number">
      <input name="exp" autocomplete="cc-exp" aria-label="Expiry">
      <input name="cvc" autocomplete="cc-csc" aria-label="CVC">
      <button>Pay</button></form>""",
}
SHOWN_FREELY = {"username"}


def _one_per_element(value: str) -> str:
    """The value a character per element, in the ways pages lay them out."""
    chars = [html.escape(c) for c in value]
    return "".join(
        [
            "<p>" + "".join(f"<span>{c}</span>" for c in chars) + "</p>",
            "<div>" + "".join(f"<div>{c}</div>" for c in chars) + "</div>",
            "<table><tr>" + "".join(f"<td>{c}</td>" for c in chars) + "</tr></table>",
            "<ul>" + "".join(f"<li>{c}</li>" for c in chars) + "</ul>",
            "<p>"
            + "".join(f'<b style="display:inline-block;margin:0 3px">{c}</b>' for c in chars)
            + "</p>",
            '<p style="white-space:pre">' + "     ".join(chars) + "</p>",
        ]
    )


def _echoes_of(value: str) -> str:
    shown = [TEXT_ECHOES[name](value) for name in sorted(TEXT_ECHOES)]
    if value.isdigit() and len(value) > 12:
        shown += [CARD_ECHOES[name](value) for name in sorted(CARD_ECHOES)]
    return "".join(f"<p>{html.escape(one)}</p>" for one in shown) + _one_per_element(value)


def _echo_page(values: dict[str, str]) -> str:
    secret = [v for k, v in values.items() if k not in SHOWN_FREELY and v]
    body = [f"<h1>{RECEIVED}</h1>"]
    for name, value in values.items():
        if name in SHOWN_FREELY:
            body.append(f"<p>Signed in as {html.escape(value)}</p>")
    for value in secret:
        if len(value) < 4:
            body.append(f"<p>CVC {html.escape(value)} was checked.</p>")
            continue
        b64 = base64.urlsafe_b64encode(value.encode()).decode()
        body += [
            _echoes_of(value),
            f'<div role="alert">Not accepted: {html.escape(TEXT_ECHOES["base64"](value))}</div>',
            f"<h2>{html.escape(value[::-1])}</h2>",
            f'<a href="/again?d={b64}">{html.escape(" ".join(value))}</a>',
            f'<input name="sent_hex" value="{value.encode().hex()}" aria-label="Sent">',
            f"<select name=codes><option>{TEXT_ECHOES['char codes, commas'](value)}</option>"
            "</select>",
            f'<iframe title="receipt" src="/frame?d={b64}"></iframe>',
        ]
    title = html.escape(" ".join(secret)[::-1].upper())
    return f"<!doctype html><title>{title}</title>" + "".join(body)


class EchoSite:
    """A site on 127.0.0.2 that echoes every value posted to it, dressed up;
    it keeps what it received."""

    def __init__(self) -> None:
        self.received: list[dict[str, str]] = []
        self.url = ""

    async def form(self, request: web.Request) -> web.Response:
        page = f"<!doctype html><title>Sign in</title>{FORMS[request.match_info['kind']]}"
        return web.Response(text=page, content_type="text/html")

    async def echo(self, request: web.Request) -> web.Response:
        values = {k: str(v) for k, v in (await request.post()).items()}
        self.received.append(values)
        return web.Response(text=_echo_page(values), content_type="text/html")

    async def frame(self, request: web.Request) -> web.Response:
        value = base64.urlsafe_b64decode(request.query["d"]).decode()
        page = f"<!doctype html><title>receipt</title>{_one_per_element(value[::-1])}"
        return web.Response(text=page, content_type="text/html")


@pytest.fixture
async def echo_site():
    site = EchoSite()
    app = web.Application()
    app.add_routes(
        [
            web.get("/form/{kind}", site.form),
            web.post("/echo", site.echo),
            web.get("/frame", site.frame),
        ]
    )
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.2", 0).start()
    site.url = f"http://127.0.0.2:{runner.addresses[0][1]}"
    yield site
    await runner.cleanup()


def shown_forms(value: str) -> set[str]:
    """What the site showed of the value, as a read would carry it (blank
    space as the reader tidies it), and URL-encoded (in an address)."""
    forms = {echo(value) for echo in TEXT_ECHOES.values()}
    forms |= {re.sub(r"\s+", " ", form) for form in forms} | {quote(value, safe="")}
    forms |= {re.sub(r"\s+", " ", " ".join(value)), "\n".join(value[::-1])}
    return {form for form in forms if form.strip()}


def runs_of_six(number: str) -> set[str]:
    return {digits[i : i + 6] for digits in (number, number[::-1]) for i in range(len(digits) - 5)}


def assert_not_shown(page: pb.Page, *values: str) -> None:
    for text in strings_of(page):
        for value in values:
            for form in shown_forms(value):
                assert form not in text, f"a form of an entered value is shown: {text[:120]!r}"
            if value.isdigit() and len(value) > 12:
                digits = re.sub(r"[\s._/-]", "", text)
                for run in runs_of_six(value):
                    assert run not in digits, f"six digits of the number are shown: {text[:120]!r}"


async def read_after_entry(browser_stub, as_person, session_id, site, forms_posted: int):
    assert len(site.received) == forms_posted
    read = await browser_read(browser_stub, as_person, session_id)
    assert RECEIVED in read.text and "[redacted]" in read.text
    assert any(frame.title == "receipt" for frame in read.frames)
    return read


async def test_a_typed_password_shown_back_dressed_up_is_masked_in_the_read(
    browser_stub, vault_stub, as_person, echo_site
):
    typed = await vault_stub.PutPrivateEntry(
        claims_pb2.PutPrivateEntryRequest(
            task_id="task-1",
            kind=claims_pb2.ENTRY_KIND_TYPED_PASSWORD,
            fields={"username": USERNAME, "password": PASSWORD},
            origin=echo_site.url,
        ),
        metadata=as_person,
    )
    session_id, page = await browser_open(browser_stub, as_person, f"{echo_site.url}/form/login")

    reply = await browser_stub.EnterPrivate(
        enter_request(
            session_id,
            typed.id,
            claims_pb2.ENTRY_KIND_TYPED_PASSWORD,
            {"username": field_ref(page, "username"), "password": field_ref(page, "password")},
            control_ref(page, "Sign in"),
        ),
        metadata=as_person,
    )

    assert reply.claim.state == claims_pb2.CLAIM_STATE_SUBMITTED
    read = await read_after_entry(browser_stub, as_person, session_id, echo_site, 1)
    assert echo_site.received[0]["password"] == PASSWORD
    assert f"Signed in as {USERNAME}" in read.text
    assert_not_shown(read, PASSWORD)


async def test_a_one_time_code_shown_back_split_or_dressed_up_is_masked_in_the_read(
    browser_stub, vault_stub, as_person, echo_site
):
    entry = await vault_stub.PutPrivateEntry(
        claims_pb2.PutPrivateEntryRequest(
            task_id="task-1",
            kind=claims_pb2.ENTRY_KIND_ONE_TIME_CODE,
            fields={"code": CODE},
            origin=echo_site.url,
        ),
        metadata=as_person,
    )
    session_id, page = await browser_open(browser_stub, as_person, f"{echo_site.url}/form/code")

    await browser_stub.EnterPrivate(
        enter_request(
            session_id,
            entry.id,
            claims_pb2.ENTRY_KIND_ONE_TIME_CODE,
            {"code": field_ref(page, "code")},
            control_ref(page, "Verify"),
        ),
        metadata=as_person,
    )

    read = await read_after_entry(browser_stub, as_person, session_id, echo_site, 1)
    assert echo_site.received[0]["code"] == CODE
    assert_not_shown(read, CODE)


async def test_a_card_numbers_digits_shown_back_are_masked_in_the_read(
    browser_stub, vault_stub, claims_stub, as_person, echo_site
):
    card = await put_card(vault_stub, as_person, number=CARD)
    code = await vault_stub.PutPrivateEntry(
        claims_pb2.PutPrivateEntryRequest(
            task_id="task-1",
            kind=claims_pb2.ENTRY_KIND_SECURITY_CODE,
            fields={"security_code": SECURITY_CODE},
        ),
        metadata=as_person,
    )
    session_id, page = await browser_open(browser_stub, as_person, f"{echo_site.url}/form/card")

    request = enter_request(
        session_id,
        card.id,
        claims_pb2.ENTRY_KIND_CARD,
        {
            "number": field_ref(page, "number"),
            "expiry": field_ref(page, "exp"),
            "security_code": field_ref(page, "cvc"),
        },
        control_ref(page, "Pay"),
        companion_entry_id=code.id,
    )
    await bound_card(claims_stub, as_person, request, echo_site.url)
    reply = await browser_stub.EnterPrivate(request, metadata=as_person)

    assert reply.entered
    read = await read_after_entry(browser_stub, as_person, session_id, echo_site, 1)
    assert echo_site.received[0]["number"] == CARD
    assert "CVC [redacted] was checked." in read.text
    assert_not_shown(read, CARD)
    assert all(SECURITY_CODE not in re.findall(r"\d+", text) for text in strings_of(read))
