"""Look (G14), a read-only check of where an uncertain result would show:
it looks from the person's session (their cookies) or a new one (none),
answers the page read and a masked picture, and leaves the session
read-only for good: the page's own writes (a fetch, a beacon, a form a
script posts, a worker's fetch, a WebSocket message) never reach the site,
while its reads do; actions are refused before they touch the page, and a
private entry before anything is claimed."""

import asyncio
import uuid

import grpc
import pytest

from nod.browser.v1 import browser_pb2 as pb
from nod.claims.v1 import claims_pb2
from nodkit.client import NodRpcError, call_metadata
from nodtest.browser import browser_open, control_ref, enter_request, field_ref
from nodtest.claims import put_login

from .looked_at import SENT_BODY, LookedAtSite, looked_at_site
from .test_screenshots import PNG, painted_pixels

# Two values of the same characters in another order: the page gives each
# the same room, so the pictures match exactly when the paint covers them.
PASSWORDS = ("Lk-pw-381925-zq", "Lk-pw-925183-zq")
# The test runners' action_timeout_s (conftest.browser_settings).
TEST_ACTION_TIMEOUT_S = 5.0
# Time for what a page sends late (a beacon, a timer's form) to arrive, were it let out.
STRAGGLERS_S = 1.0


@pytest.fixture
async def site():
    async with looked_at_site() as served:
        yield served


async def look(stub, meta, url: str, session_id: str = "", task_id: str = "task-1"):
    request = pb.LookRequest(session_id=session_id, task_id=task_id, url=url)
    return await stub.Look(request, metadata=meta)


async def refused(call) -> NodRpcError:
    with pytest.raises(grpc.aio.AioRpcError) as failure:
        await call
    return NodRpcError(failure.value)


async def signed_in_session(stub, meta, site: LookedAtSite, who: str = "ada") -> str:
    session_id, _ = await browser_open(stub, meta, f"{site.url}/sign-in?as={who}")
    return session_id


async def still_acts(stub, meta, session_id: str, site: LookedAtSite) -> None:
    """The session is not read-only: typing into its page works."""
    await stub.Navigate(
        pb.NavigateRequest(session_id=session_id, url=f"{site.url}/account"), metadata=meta
    )
    typed = await stub.TypeText(
        pb.TypeTextRequest(session_id=session_id, target="#note", text="still mine"),
        metadata=meta,
    )
    assert next(f for f in typed.page.fields if f.name == "note").value == "still mine"


async def test_a_look_from_a_session_keeps_its_cookies_and_answers_a_picture(
    browser_stub, as_person, site
):
    session_id = await signed_in_session(browser_stub, as_person, site)

    looked = await look(browser_stub, as_person, f"{site.url}/account", session_id)

    assert looked.session_id == session_id
    assert "Signed in as ada" in looked.page.text
    assert looked.page.url == f"{site.url}/account"
    assert looked.image.startswith(PNG) and looked.media_type == "image/png"


async def test_a_look_without_a_session_opens_one_with_no_cookies(browser_stub, as_person, site):
    signed_in = await signed_in_session(browser_stub, as_person, site)

    looked = await look(browser_stub, as_person, f"{site.url}/account")

    assert looked.session_id and looked.session_id != signed_in
    assert "Not signed in" in looked.page.text
    listed = await browser_stub.ListSessions(
        pb.ListSessionsRequest(task_id="task-1"), metadata=as_person
    )
    assert {s.session_id for s in listed.sessions} == {signed_in, looked.session_id}
    # The new session is read-only too; the other one is as it was.
    error = await refused(
        browser_stub.Click(
            pb.ClickRequest(session_id=looked.session_id, target="button"), metadata=as_person
        )
    )
    assert error.reason == "READ_ONLY_SESSION"
    mine = await browser_stub.Navigate(
        pb.NavigateRequest(session_id=signed_in, url=f"{site.url}/account"), metadata=as_person
    )
    assert "Signed in as ada" in mine.page.text


async def test_after_a_look_every_action_is_refused_and_nothing_is_claimed_or_sent(
    browser_stub, vault_stub, claims_stub, as_person, site
):
    session_id = await signed_in_session(browser_stub, as_person, site)
    page = (await look(browser_stub, as_person, f"{site.url}/account", session_id)).page
    item = await put_login(vault_stub, as_person, origin=site.url)
    before = site.total
    note, size = field_ref(page, "note"), field_ref(page, "size")
    gift, button = field_ref(page, "gift"), control_ref(page, "Cancel order")
    actions = {
        "Click": pb.ClickRequest(session_id=session_id, target=button),
        "TypeText": pb.TypeTextRequest(session_id=session_id, target=note, text="hello"),
        "SelectOption": pb.SelectOptionRequest(session_id=session_id, target=size, option="M"),
        "SetChecked": pb.SetCheckedRequest(session_id=session_id, target=gift, checked=True),
        "PressKey": pb.PressKeyRequest(session_id=session_id, target=note, key="Enter"),
        "EnterPrivate": enter_request(
            session_id,
            item.id,
            claims_pb2.ENTRY_KIND_SAVED_LOGIN,
            {"username": field_ref(page, "username"), "password": field_ref(page, "password")},
            button,
        ),
    }

    for name, request in actions.items():
        error = await refused(getattr(browser_stub, name)(request, metadata=as_person))
        assert (error.code, error.reason) == (
            grpc.StatusCode.FAILED_PRECONDITION,
            "READ_ONLY_SESSION",
        ), name

    claims = await claims_stub.ListClaims(claims_pb2.ListClaimsRequest(), metadata=as_person)
    assert list(claims.claims) == []
    await asyncio.sleep(STRAGGLERS_S)
    assert site.total == before  # nothing reached the site
    after = (
        await browser_stub.ReadPage(pb.ReadPageRequest(session_id=session_id), metadata=as_person)
    ).page
    assert [(f.name, f.value, f.checked) for f in after.fields] == [
        (f.name, f.value, f.checked) for f in page.fields
    ]


async def test_reads_and_moves_still_answer_on_a_read_only_session(browser_stub, as_person, site):
    session_id = await signed_in_session(browser_stub, as_person, site)
    await look(browser_stub, as_person, f"{site.url}/account", session_id)
    on_it = {"session_id": session_id}

    navigated = await browser_stub.Navigate(
        pb.NavigateRequest(url=f"{site.url}/settings?word=one", **on_it), metadata=as_person
    )
    assert navigated.page.title == "Settings"
    await browser_stub.ReadPage(pb.ReadPageRequest(settle=True, **on_it), metadata=as_person)
    await browser_stub.Scroll(pb.ScrollRequest(pages=1, **on_it), metadata=as_person)
    back = await browser_stub.GoBack(pb.GoBackRequest(**on_it), metadata=as_person)
    assert back.page.title == "Your account"
    await browser_stub.SwitchPage(pb.SwitchPageRequest(page_id="p0", **on_it), metadata=as_person)
    shot = await browser_stub.Screenshot(pb.ScreenshotRequest(**on_it), metadata=as_person)
    assert shot.image.startswith(PNG)


async def test_a_pages_own_writes_never_leave_during_a_look_and_its_reads_do(
    browser_stub, as_person, site, log_tee
):
    looked = await look(browser_stub, as_person, f"{site.url}/orders")
    await asyncio.sleep(STRAGGLERS_S)

    assert site.count("POST") == 0 and site.socket_messages == 0, site.arrived
    assert site.count("GET", "/orders") == 1 and site.count("GET", "/pixel.png") == 1
    assert site.count("GET", "/worker.js") == 1  # the dedicated worker's script; no shared one
    # The form the script posted was stopped where it stood: the page stays.
    assert looked.page.title == "Your orders" and "Order 42: paid" in looked.page.text
    logged = log_tee.text()
    assert "browser.read_only_refused" in logged and site.url in logged
    assert SENT_BODY not in logged

    # Read-only for good: going there again sends no more than the first time.
    await browser_stub.Navigate(
        pb.NavigateRequest(session_id=looked.session_id, url=f"{site.url}/orders"),
        metadata=as_person,
    )
    await asyncio.sleep(STRAGGLERS_S)
    assert site.count("POST") == 0 and site.socket_messages == 0, site.arrived
    assert site.count("GET", "/orders") == 2


async def test_a_form_posted_before_the_page_loaded_does_not_hold_the_look(
    browser_stub, as_person, site
):
    """Refused, a navigation the page asked for leaves Playwright waiting
    for a load it never sees: the look waits on the document instead, and
    answers well inside the bound it would otherwise wait out."""
    loop = asyncio.get_running_loop()
    began = loop.time()

    looked = await look(browser_stub, as_person, f"{site.url}/orders/early")

    assert loop.time() - began < TEST_ACTION_TIMEOUT_S
    assert looked.page.title == "Your orders" and "Order 42: paid" in looked.page.text
    assert site.count("POST") == 0
    again = await browser_stub.ReadPage(
        pb.ReadPageRequest(session_id=looked.session_id, settle=True), metadata=as_person
    )
    assert again.page.title == "Your orders"


async def test_a_private_value_on_the_looked_at_page_is_masked_in_the_read_and_picture(
    browser_stub, as_person, site
):
    looks = []
    for value in PASSWORDS:
        site.remembered = value
        looks.append(await look(browser_stub, as_person, f"{site.url}/settings?word=plain"))

    for looked, value in zip(looks, PASSWORDS, strict=True):
        password = next(f for f in looked.page.fields if f.name == "password")
        assert password.masked and password.value == ""
        assert value not in str(looked.page)
    assert looks[0].image == looks[1].image
    assert painted_pixels(looks[0].image) > 0
    # The comparison can fail: a plain word that differs shows.
    other = await look(browser_stub, as_person, f"{site.url}/settings?word=other")
    assert other.image != looks[0].image


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://127.0.0.2/x", "", "javascript:1"])
async def test_an_address_that_is_not_http_is_refused_naming_url(
    browser_stub, as_person, site, url
):
    session_id = await signed_in_session(browser_stub, as_person, site)

    for from_session in (session_id, ""):
        error = await refused(look(browser_stub, as_person, url, from_session))
        assert (error.code, error.field) == (grpc.StatusCode.INVALID_ARGUMENT, "url")
    # Nothing was opened, and the session was not made read-only.
    listed = await browser_stub.ListSessions(pb.ListSessionsRequest(), metadata=as_person)
    assert [s.session_id for s in listed.sessions] == [session_id]
    await still_acts(browser_stub, as_person, session_id, site)


async def test_a_session_that_is_not_the_callers_is_not_found(
    browser_stub, as_person, service_token, site
):
    session_id = await signed_in_session(browser_stub, as_person, site)
    url = f"{site.url}/account"
    stranger = call_metadata(service_token, "someone-else")
    before = site.total

    unknown = await refused(look(browser_stub, as_person, url, str(uuid.uuid4())))
    theirs = await refused(look(browser_stub, stranger, url, session_id))
    other_task = await refused(look(browser_stub, as_person, url, session_id, "task-2"))

    for error in (unknown, theirs, other_task):
        assert (error.code, error.reason) == (grpc.StatusCode.NOT_FOUND, "SESSION_NOT_FOUND")
    assert site.total == before
    # None of them made the owner's session read-only.
    await still_acts(browser_stub, as_person, session_id, site)


async def test_a_failed_look_closes_the_session_it_opened(browser_stub, as_person):
    # 127.0.0.1 is where nod's own services listen: the address guard refuses it.
    error = await refused(look(browser_stub, as_person, "http://127.0.0.1:8080/orders"))

    assert error.reason == "ADDRESS_NOT_ALLOWED"
    listed = await browser_stub.ListSessions(pb.ListSessionsRequest(), metadata=as_person)
    assert list(listed.sessions) == []


async def test_a_resent_look_looks_again(browser_stub, as_person, site):
    session_id = await signed_in_session(browser_stub, as_person, site)
    url = f"{site.url}/account"

    first = await look(browser_stub, as_person, url, session_id)
    again = await look(browser_stub, as_person, url, session_id)

    assert first.page.text == again.page.text
    assert site.count("GET", "/account") == 2
