"""Sessions belong to one person and one context; reads name elements with
stable refs; bad input is refused naming the field."""

import asyncio

import grpc
import pytest

from nod.browser.v1 import browser_pb2 as pb
from nod.claims.v1 import claims_pb2
from nodkit.client import NodRpcError, call_metadata
from nodtest.browser import (
    browser_login,
    browser_open,
    browser_read,
    enter_request,
    field_ref,
    put_shop_login,
)
from nodtest.claims import CANARY_PASSWORD
from nodtest.demo import SHOP_USERNAME


async def refused(call) -> NodRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as failure:
        await call
    return NodRpcError(failure.value)


async def test_another_persons_session_is_not_found(
    browser_stub, as_person, service_token, shop_site
):
    session_id, _ = await browser_open(browser_stub, as_person, f"{shop_site.url}/login")
    stranger = call_metadata(service_token, "someone-else")

    error = await refused(
        browser_stub.ReadPage(pb.ReadPageRequest(session_id=session_id), metadata=stranger)
    )

    assert error.code == grpc.StatusCode.NOT_FOUND
    listed = await browser_stub.ListSessions(pb.ListSessionsRequest(), metadata=stranger)
    assert session_id not in [s.session_id for s in listed.sessions]


async def test_sessions_do_not_share_cookies(browser_stub, vault_stub, as_person, shop_site):
    item = await put_shop_login(vault_stub, as_person, shop_site, SHOP_USERNAME, CANARY_PASSWORD)
    signed_in, page = await browser_open(browser_stub, as_person, f"{shop_site.url}/login")
    await browser_login(browser_stub, as_person, signed_in, page, item.id)

    _, theirs = await browser_open(browser_stub, as_person, f"{shop_site.url}/account")

    mine = await browser_stub.Navigate(
        pb.NavigateRequest(session_id=signed_in, url=f"{shop_site.url}/account"),
        metadata=as_person,
    )
    assert f"Signed in as {SHOP_USERNAME}" in mine.page.text
    assert theirs.url.endswith("/login") and theirs.login_form_present


async def test_a_private_field_is_refused_by_type_text(browser_stub, as_person, shop_site):
    session_id, page = await browser_open(browser_stub, as_person, f"{shop_site.url}/login")
    request = pb.TypeTextRequest(
        session_id=session_id, target=field_ref(page, "password"), text="typed-by-a-model"
    )

    error = await refused(browser_stub.TypeText(request, metadata=as_person))

    assert error.code == grpc.StatusCode.INVALID_ARGUMENT and error.field == "target"
    assert not next(
        f
        for f in (await browser_read(browser_stub, as_person, session_id)).fields
        if f.name == "password"
    ).filled


async def test_refs_are_stable_while_the_page_is_unchanged(browser_stub, as_person, shop_site):
    session_id, first = await browser_open(browser_stub, as_person, f"{shop_site.url}/checkout")
    second = await browser_read(browser_stub, as_person, session_id)

    assert [(f.ref, f.name) for f in first.fields] == [(f.ref, f.name) for f in second.fields]
    assert first.payment_form_present and not first.login_form_present
    assert {f.name for f in first.fields if f.masked} == {"card_number", "expiry", "cvc", "holder"}


async def test_typing_goes_into_a_plain_field_and_reads_back(browser_stub, as_person, shop_site):
    session_id, page = await browser_open(browser_stub, as_person, f"{shop_site.url}/login")

    typed = await browser_stub.TypeText(
        pb.TypeTextRequest(session_id=session_id, target=field_ref(page, "username"), text="lin"),
        metadata=as_person,
    )

    assert next(f for f in typed.page.fields if f.name == "username").value == "lin"


@pytest.mark.parametrize(
    ("call", "field"),
    [
        ("ReadPage", "session_id"),
        ("Navigate", "url"),
        ("TypeText", "text"),
        ("EnterPrivate", "operation_id"),
        ("EnterPrivate", "fields.pin"),
        ("EnterPrivate", "kind"),
        ("Click", "target"),
        ("OpenSession", "task_id"),
    ],
)
async def test_bad_input_is_refused_naming_the_field(
    browser_stub, as_person, shop_site, call, field
):
    session_id, _ = await browser_open(browser_stub, as_person, f"{shop_site.url}/login")
    item_id = "0b6f2d52-7e9e-4c1f-9d1e-3b1f3f0c2a11"
    requests = {
        "session_id": pb.ReadPageRequest(session_id="not-a-session"),
        "url": pb.NavigateRequest(session_id=session_id, url="file:///etc/passwd"),
        "operation_id": enter_request(
            session_id, item_id, claims_pb2.ENTRY_KIND_SAVED_LOGIN, {"password": "e1"}, "e2", " "
        ),
        "fields.pin": enter_request(
            session_id, item_id, claims_pb2.ENTRY_KIND_SAVED_LOGIN, {"pin": "e1"}, "e2"
        ),
        "kind": enter_request(session_id, item_id, 0, {"password": "e1"}, "e2"),
        "target": pb.ClickRequest(session_id=session_id, target=""),
        "text": pb.TypeTextRequest(session_id=session_id, target="f1", text="ada\x00"),
        "task_id": pb.OpenSessionRequest(task_id=""),
    }

    error = await refused(getattr(browser_stub, call)(requests[field], metadata=as_person))

    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert error.field == field


async def test_a_closed_session_is_gone(browser_stub, as_person, shop_site):
    session_id, _ = await browser_open(browser_stub, as_person, shop_site.url)

    await browser_stub.CloseSession(
        pb.CloseSessionRequest(session_id=session_id), metadata=as_person
    )

    error = await refused(
        browser_stub.ReadPage(pb.ReadPageRequest(session_id=session_id), metadata=as_person)
    )
    assert error.code == grpc.StatusCode.NOT_FOUND


async def test_a_session_nobody_uses_is_closed_after_the_idle_limit(
    browser_with, claims_server, as_person, shop_site
):
    """A task's session whose end was never told (its tasks service gone, a
    person who never answers) frees its place in the runner by itself;
    one in use is left alone."""
    stub = await browser_with(claims_server, session_idle_s=1.5, max_sessions=2)
    idle, _ = await browser_open(stub, as_person, f"{shop_site.url}/login")
    busy, _ = await browser_open(stub, as_person, f"{shop_site.url}/login")

    for _ in range(12):  # used every 0.25 s for 3 s: never idle that long
        await stub.ReadPage(pb.ReadPageRequest(session_id=busy), metadata=as_person)
        await asyncio.sleep(0.25)

    listed = await stub.ListSessions(pb.ListSessionsRequest(), metadata=as_person)
    assert [s.session_id for s in listed.sessions] == [busy]
    error = await refused(stub.ReadPage(pb.ReadPageRequest(session_id=idle), metadata=as_person))
    assert error.reason == "SESSION_NOT_FOUND"
    # Its place is free again: a new session opens in the full runner.
    await browser_open(stub, as_person, f"{shop_site.url}/login")
