"""Look (G14), a read-only check of where an uncertain result would show:
it always looks from a new session of its own, read-only from its birth,
and answers that session's id, the page read and a masked picture. Looking
from the person's session, the look's session starts with copies of its
cookies and storage and of the values entered in it (masked in the look's
read and picture, guarded from going elsewhere), taken once; the person's
session is left as it was and goes on acting. In the look's session the
page's own writes (a fetch, a beacon, a form a script posts, a worker's
fetch, a WebSocket message) never reach the site, while its reads do;
actions are refused before they touch the page, and a private entry before
anything is claimed."""

import asyncio
import uuid

import grpc
import pytest

from nod.browser.v1 import browser_pb2 as pb
from nod.claims.v1 import claims_pb2
from nodkit.client import NodRpcError, call_metadata
from nodtest.browser import browser_open, browser_read, control_ref, enter_request, field_ref
from nodtest.claims import put_login

from .hosts import elsewhere_site
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


async def signed_in_with_a_password(
    stub, vault_stub, meta, site: LookedAtSite, password: str
) -> str:
    """A signed-in session in which `password` was entered (EnterPrivate)
    and sent to the site, which keeps it and shows it back at /received."""
    session_id = await signed_in_session(stub, meta, site)
    page = (
        await stub.Navigate(
            pb.NavigateRequest(session_id=session_id, url=f"{site.url}/profile"), metadata=meta
        )
    ).page
    item = await put_login(vault_stub, meta, origin=site.url, password=password)
    request = enter_request(
        session_id,
        item.id,
        claims_pb2.ENTRY_KIND_SAVED_LOGIN,
        {"username": field_ref(page, "username"), "password": field_ref(page, "password")},
        control_ref(page, "Save"),
    )
    reply = await stub.EnterPrivate(request, metadata=meta)
    assert reply.entered and site.received == password
    return session_id


async def where_it_is(stub, meta, session_id: str) -> list[tuple[str, str, str, bool]]:
    """The session's open pages and which is current, as a read lists them."""
    page = await browser_read(stub, meta, session_id)
    return [(p.page_id, p.url, p.title, p.current) for p in page.pages]


async def task_sessions(stub, meta, task_id: str = "task-1") -> set[str]:
    listed = await stub.ListSessions(pb.ListSessionsRequest(task_id=task_id), metadata=meta)
    return {s.session_id for s in listed.sessions}


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


async def test_a_look_from_a_session_opens_its_own_with_the_cookies_and_answers_a_picture(
    browser_stub, as_person, site
):
    session_id = await signed_in_session(browser_stub, as_person, site)
    before = await where_it_is(browser_stub, as_person, session_id)

    looked = await look(browser_stub, as_person, f"{site.url}/account", session_id)

    assert looked.session_id and looked.session_id != session_id
    assert "Signed in as ada" in looked.page.text
    assert looked.page.url == f"{site.url}/account"
    assert looked.image.startswith(PNG) and looked.media_type == "image/png"
    # The look's session is the task's too, open until its caller closes it.
    assert await task_sessions(browser_stub, as_person) == {session_id, looked.session_id}
    # The session looked from is where it was, and still acts.
    assert await where_it_is(browser_stub, as_person, session_id) == before
    await still_acts(browser_stub, as_person, session_id, site)
    await browser_stub.CloseSession(
        pb.CloseSessionRequest(session_id=looked.session_id), metadata=as_person
    )
    assert await task_sessions(browser_stub, as_person) == {session_id}


async def test_a_look_copies_the_sessions_storage_and_the_copy_reaches_no_site(
    browser_stub, as_person, site
):
    """Playwright reads the storage of an origin no page of the session is
    on from a hidden page of its own (and puts it in place in the look's
    the same way): neither reaches a site, nor shows in the session."""
    session_id = await signed_in_session(browser_stub, as_person, site)
    async with elsewhere_site() as elsewhere:
        await browser_stub.Navigate(
            pb.NavigateRequest(session_id=session_id, url=f"{site.url}/remember?note=kept"),
            metadata=as_person,
        )
        await browser_stub.Navigate(
            pb.NavigateRequest(session_id=session_id, url=f"{elsewhere.url}/somewhere"),
            metadata=as_person,
        )
        before = await where_it_is(browser_stub, as_person, session_id)
        arrived, elsewhere_got = site.arrived.copy(), elsewhere.received

        looked = await look(browser_stub, as_person, f"{site.url}/stored", session_id)

        assert "Stored: kept" in looked.page.text
        await asyncio.sleep(STRAGGLERS_S)
        # Chromium may ask for the site's icon on its own; nothing else arrives.
        came = site.arrived - arrived
        came.pop(("GET", "/favicon.ico"), None)
        assert came == {("GET", "/stored"): 1}, site.arrived
        assert elsewhere.received == elsewhere_got
        assert await where_it_is(browser_stub, as_person, session_id) == before


async def test_a_look_without_a_session_opens_one_with_no_cookies(browser_stub, as_person, site):
    signed_in = await signed_in_session(browser_stub, as_person, site)

    looked = await look(browser_stub, as_person, f"{site.url}/account")

    assert looked.session_id and looked.session_id != signed_in
    assert "Not signed in" in looked.page.text
    assert await task_sessions(browser_stub, as_person) == {signed_in, looked.session_id}
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


async def test_every_action_on_a_looks_session_is_refused_and_nothing_is_claimed_or_sent(
    browser_stub, vault_stub, claims_stub, as_person, site
):
    source = await signed_in_session(browser_stub, as_person, site)
    looked = await look(browser_stub, as_person, f"{site.url}/account", source)
    session_id, page = looked.session_id, looked.page
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
    after = await browser_read(browser_stub, as_person, session_id)
    assert [(f.name, f.value, f.checked) for f in after.fields] == [
        (f.name, f.value, f.checked) for f in page.fields
    ]
    # The session looked from was never read-only.
    await still_acts(browser_stub, as_person, source, site)


async def test_reads_and_moves_still_answer_on_a_looks_session(browser_stub, as_person, site):
    source = await signed_in_session(browser_stub, as_person, site)
    looked = await look(browser_stub, as_person, f"{site.url}/account", source)
    on_it = {"session_id": looked.session_id}

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


@pytest.mark.parametrize("from_session", [False, True], ids=["new", "from a session"])
async def test_a_pages_own_writes_never_leave_during_a_look_and_its_reads_do(
    browser_stub, as_person, site, log_tee, from_session
):
    source = await signed_in_session(browser_stub, as_person, site) if from_session else ""
    looked = await look(browser_stub, as_person, f"{site.url}/orders", source)
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
    takes about as long as a look at a plain page, not the bound it would
    otherwise wait out (measured against that look in the same moment, so a
    busy machine slows both alike)."""
    loop = asyncio.get_running_loop()
    began = loop.time()
    await look(browser_stub, as_person, f"{site.url}/account")
    plain_s = loop.time() - began
    began = loop.time()

    looked = await look(browser_stub, as_person, f"{site.url}/orders/early")

    assert loop.time() - began < plain_s + TEST_ACTION_TIMEOUT_S * 0.6
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


async def test_a_value_entered_in_the_session_is_masked_in_the_looks_read_and_picture(
    browser_stub, vault_stub, as_person, site
):
    looks = []
    for value in PASSWORDS:
        source = await signed_in_with_a_password(browser_stub, vault_stub, as_person, site, value)
        looks.append(await look(browser_stub, as_person, f"{site.url}/received", source))

    for looked, value in zip(looks, PASSWORDS, strict=True):
        assert looked.page.title == "What we received"
        assert "Your new password is [redacted] as of today" in looked.page.text
        assert next(f for f in looked.page.fields if f.name == "echo").value == "[redacted]"
        assert value not in str(looked.page)
    # Painted over alike: the pictures match exactly.
    assert looks[0].image == looks[1].image
    assert painted_pixels(looks[0].image) > 0


async def test_a_value_entered_in_the_session_goes_nowhere_else_from_the_look(
    browser_stub, vault_stub, as_person, site, log_tee
):
    value = PASSWORDS[0]
    source = await signed_in_with_a_password(browser_stub, vault_stub, as_person, site, value)
    async with elsewhere_site(value) as elsewhere:
        site.leak_to = elsewhere.url

        looked = await look(browser_stub, as_person, f"{site.url}/received", source)
        await asyncio.sleep(STRAGGLERS_S)

        # The page's image would have taken it there (a GET, which a
        # read-only session lets out): the copied value guard stopped it.
        assert (elsewhere.received, elsewhere.carried) == (0, 0)
        assert looked.page.title == "What we received"
        assert "value_guard.stopped" in log_tee.text()


async def test_the_copy_is_taken_once_and_neither_session_changes_the_other(
    browser_stub, as_person, site
):
    source = await signed_in_session(browser_stub, as_person, site)
    looked = await look(browser_stub, as_person, f"{site.url}/account", source)

    # A sign-in in the source after the look, and one in the look's session
    # (a GET, as a read-only session may send), each stay where they were made.
    await browser_stub.Navigate(
        pb.NavigateRequest(session_id=source, url=f"{site.url}/sign-in?as=bob"),
        metadata=as_person,
    )
    await browser_stub.Navigate(
        pb.NavigateRequest(session_id=looked.session_id, url=f"{site.url}/sign-in?as=eve"),
        metadata=as_person,
    )
    again = await look(browser_stub, as_person, f"{site.url}/account", source)
    seen_from = {}
    for session_id in (source, looked.session_id, again.session_id):
        account = await browser_stub.Navigate(
            pb.NavigateRequest(session_id=session_id, url=f"{site.url}/account"),
            metadata=as_person,
        )
        seen_from[session_id] = account.page.text
    assert "Signed in as bob" in seen_from[source]
    assert "Signed in as eve" in seen_from[looked.session_id]
    assert "Signed in as bob" in seen_from[again.session_id]


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://127.0.0.2/x", "", "javascript:1"])
async def test_an_address_that_is_not_http_is_refused_naming_url(
    browser_stub, as_person, site, url
):
    session_id = await signed_in_session(browser_stub, as_person, site)

    for from_session in (session_id, ""):
        error = await refused(look(browser_stub, as_person, url, from_session))
        assert (error.code, error.field) == (grpc.StatusCode.INVALID_ARGUMENT, "url")
    # Nothing was opened, and the session is as it was.
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
    # None of them opened a session, nor changed the owner's.
    listed = await browser_stub.ListSessions(pb.ListSessionsRequest(), metadata=as_person)
    assert [s.session_id for s in listed.sessions] == [session_id]
    strangers = await browser_stub.ListSessions(pb.ListSessionsRequest(), metadata=stranger)
    assert list(strangers.sessions) == []
    await still_acts(browser_stub, as_person, session_id, site)


async def test_a_failed_look_closes_the_session_it_opened(browser_stub, as_person, site):
    # 127.0.0.1 is where nod's own services listen: the address guard refuses it.
    url = "http://127.0.0.1:8080/orders"
    error = await refused(look(browser_stub, as_person, url))

    assert error.reason == "ADDRESS_NOT_ALLOWED"
    listed = await browser_stub.ListSessions(pb.ListSessionsRequest(), metadata=as_person)
    assert list(listed.sessions) == []

    # From a session: the look's own is closed; the one looked from stays.
    source = await signed_in_session(browser_stub, as_person, site)
    error = await refused(look(browser_stub, as_person, url, source))

    assert error.reason == "ADDRESS_NOT_ALLOWED"
    assert await task_sessions(browser_stub, as_person) == {source}
    await still_acts(browser_stub, as_person, source, site)


async def test_a_look_counts_against_the_runners_sessions(
    browser_with, claims_server, as_person, site
):
    stub = await browser_with(claims_server, max_sessions=1)
    source = await signed_in_session(stub, as_person, site)
    before = site.total

    error = await refused(look(stub, as_person, f"{site.url}/account", source))

    assert (error.code, error.reason) == (
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        "TOO_MANY_SESSIONS",
    )
    assert site.total == before
    assert await task_sessions(stub, as_person) == {source}
    await still_acts(stub, as_person, source, site)


async def test_a_resent_look_looks_again(browser_stub, as_person, site):
    session_id = await signed_in_session(browser_stub, as_person, site)
    url = f"{site.url}/account"

    first = await look(browser_stub, as_person, url, session_id)
    again = await look(browser_stub, as_person, url, session_id)

    assert first.page.text == again.page.text
    assert len({session_id, first.session_id, again.session_id}) == 3
    assert site.count("GET", "/account") == 2
