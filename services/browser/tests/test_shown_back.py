"""A site that shows back what it received (issue 8): every private value the
runner entered in a session is masked in every page that session returns
(ReadPage, Navigate, Click, TypeText), as itself, URL-encoded and as HTML
character references, for as long as the session lives; the values a site
rightly shows (the username) stay."""

import html
from urllib.parse import quote, quote_plus

import pyotp
from google.protobuf import json_format

from nod.browser.v1 import browser_pb2 as pb
from nod.claims.v1 import claims_pb2
from nodtest.browser import (
    browser_login,
    browser_open,
    browser_read,
    control_ref,
    enter_request,
    field_ref,
    put_shop_login,
)
from nodtest.claims import CANARY_PASSWORD
from nodtest.demo import SHOP_TOTP_SEED, SHOP_TOTP_USERNAME, SHOP_USERNAME

# Spaces (two in a row), +, &, <, > and quotes: each encoding differs from the value.
ECHOED = 'pw <&> "q"  y+z!'


def forms_of(value: str) -> set[str]:
    return {
        value,
        quote(value, safe=""),
        quote(value),
        quote_plus(value, safe=""),
        quote_plus(value),
        html.escape(value),
        html.escape(value).upper(),
        value.encode("ascii", "xmlcharrefreplace").decode(),
        "".join(f"&#{ord(c)};" for c in value),
        " ".join(value.split()),
    }


def strings_of(page: pb.Page) -> list[str]:
    found: list[str] = []

    def walk(value) -> None:
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(json_format.MessageToDict(page))
    return found


def assert_not_shown(page: pb.Page, *values: str) -> None:
    for text in strings_of(page):
        for value in values:
            for form in forms_of(value):
                assert form not in text, f"a form of an entered value is shown: {text[:80]!r}"


async def test_a_typed_password_shown_back_is_masked_in_every_page_the_session_returns(
    browser_stub, vault_stub, as_person, shop_site, log_tee
):
    typed = await vault_stub.PutPrivateEntry(
        claims_pb2.PutPrivateEntryRequest(
            task_id="task-1",
            kind=claims_pb2.ENTRY_KIND_TYPED_PASSWORD,
            fields={"username": SHOP_USERNAME, "password": ECHOED},
            origin=shop_site.url,
        ),
        metadata=as_person,
    )
    session_id, page = await browser_open(browser_stub, as_person, f"{shop_site.url}/login")
    shop_site.state.set_mode("login", "echo")
    request = enter_request(
        session_id,
        typed.id,
        claims_pb2.ENTRY_KIND_TYPED_PASSWORD,
        {"username": field_ref(page, "username"), "password": field_ref(page, "password")},
        control_ref(page, "Sign in"),
    )

    reply = await browser_stub.EnterPrivate(request, metadata=as_person)
    read = await browser_read(browser_stub, as_person, session_id)

    assert reply.claim.state == claims_pb2.CLAIM_STATE_SUBMITTED
    assert "/echo?" in read.url and "[redacted]" in read.url
    assert "Sorry, we could not process" in read.text and SHOP_USERNAME in read.text
    assert "[redacted]" in read.title and any("[redacted]" in n.text for n in read.notices)
    assert {"sent0", "sent1"} <= {f.name for f in read.fields}
    assert_not_shown(read, ECHOED)
    typed_in = await browser_stub.TypeText(
        pb.TypeTextRequest(session_id=session_id, target=field_ref(read, "sent0"), text="x"),
        metadata=as_person,
    )
    assert_not_shown(typed_in.page, ECHOED)
    clicked = await browser_stub.Click(
        pb.ClickRequest(session_id=session_id, target=control_ref(read, "Try again", "link")),
        metadata=as_person,
    )
    assert "/login?" in clicked.page.url and "password=[redacted]" in clicked.page.url
    assert_not_shown(clicked.page, ECHOED)
    assert ECHOED not in log_tee.text()


async def test_values_entered_earlier_in_the_session_stay_masked(
    browser_stub, vault_stub, as_person, shop_site
):
    item = await put_shop_login(
        vault_stub, as_person, shop_site, SHOP_TOTP_USERNAME, CANARY_PASSWORD
    )
    session_id, page = await browser_open(browser_stub, as_person, f"{shop_site.url}/login")
    await browser_login(browser_stub, as_person, session_id, page, item.id)
    code = pyotp.TOTP(SHOP_TOTP_SEED).now()
    entry = await vault_stub.PutPrivateEntry(
        claims_pb2.PutPrivateEntryRequest(
            task_id="task-1",
            kind=claims_pb2.ENTRY_KIND_ONE_TIME_CODE,
            fields={"code": code},
            origin=shop_site.url,
        ),
        metadata=as_person,
    )
    page = await browser_read(browser_stub, as_person, session_id)
    shop_site.state.set_mode("otp", "echo")
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

    echoed = await browser_read(browser_stub, as_person, session_id)
    both = f"{shop_site.url}/echo?password={quote_plus(CANARY_PASSWORD)}&code={code}"
    navigated = await browser_stub.Navigate(
        pb.NavigateRequest(session_id=session_id, url=both), metadata=as_person
    )

    assert "code=[redacted]" in echoed.url
    assert_not_shown(echoed, code)
    assert navigated.page.url.endswith("/echo?password=[redacted]&code=[redacted]")
    assert_not_shown(navigated.page, CANARY_PASSWORD, code)
