"""What real sites lay over or around a field still takes a private value
(nodtest.patterns' pages): floating labels over the whole field, a code in
styled boxes with hints drawn over them, and a code typed into one
transparent input laid over drawn boxes (the input-otp library). The
field rules refuse a covered or transparent field; these are neither to a
person, and each entry goes through once."""

import hashlib
from urllib.parse import urlparse

import pyotp

from nod.claims.v1 import claims_pb2
from nodtest.browser import browser_open, enter_request, put_shop_login
from nodtest.claims import CANARY_PASSWORD

from .test_real_patterns import control, field_named, read

SUBMITTED = claims_pb2.CLAIM_STATE_SUBMITTED


def sha256(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


async def test_a_sign_in_with_labels_over_its_fields_is_entered(
    browser_stub, vault_stub, as_person, pattern_sites
):
    sites = pattern_sites
    item = await put_shop_login(vault_stub, as_person, sites, "ada", CANARY_PASSWORD)
    session_id, page = await browser_open(browser_stub, as_person, f"{sites.url}/floating-login")
    username, password = field_named(page, "username"), field_named(page, "password")
    assert (username.label, password.label) == ("Email or username", "Password")

    reply = await browser_stub.EnterPrivate(
        enter_request(
            session_id,
            item.id,
            claims_pb2.ENTRY_KIND_SAVED_LOGIN,
            {"username": username.ref, "password": password.ref},
            control(page, "Sign in").ref,
        ),
        metadata=as_person,
    )

    assert reply.entered and reply.claim.state == SUBMITTED
    assert sites.count("floating_login") == 1 and sites.outcome("floating_login", "signed_in") == 1
    assert sites.state.last["floating_login"]["password"]["sha256"] == sha256(CANARY_PASSWORD)


async def enter_code(browser_stub, vault_stub, meta, sites, path: str, field) -> str:
    """A one-time code into the page's code field (`field` picks it from a
    read); the code it was."""
    session_id, page = await browser_open(browser_stub, meta, f"{sites.url}{path}")
    code = pyotp.TOTP(sites.state.totp_seed).now()
    entry = await vault_stub.PutPrivateEntry(
        claims_pb2.PutPrivateEntryRequest(
            task_id="task-1",
            kind=claims_pb2.ENTRY_KIND_ONE_TIME_CODE,
            fields={"code": code},
            origin=sites.url,  # the page it is typed for, as the private form says
        ),
        metadata=meta,
    )
    request = enter_request(
        session_id,
        entry.id,
        claims_pb2.ENTRY_KIND_ONE_TIME_CODE,
        {"code": field(page).ref},
        control(page, "Verify").ref,
    )

    reply = await browser_stub.EnterPrivate(request, metadata=meta)

    assert reply.entered and reply.claim.state == SUBMITTED, reply.claim.reason
    after = await read(browser_stub, meta, session_id, settle=True)
    assert urlparse(after.url).path == "/account"
    return code


async def test_a_code_in_styled_boxes_is_entered_once(
    browser_stub, vault_stub, as_person, pattern_sites
):
    def boxes(page):
        (code,) = [f for f in page.fields if f.type == "code_boxes"]
        assert code.boxes == 6
        return code

    code = await enter_code(
        browser_stub, vault_stub, as_person, pattern_sites, "/styled-code", boxes
    )

    assert pattern_sites.outcome("styled_code", "accepted") == 1
    assert pattern_sites.state.last["styled_code"]["code"]["sha256"] == sha256(code)


async def test_a_code_typed_into_a_transparent_input_over_drawn_boxes_is_entered_once(
    browser_stub, vault_stub, as_person, pattern_sites
):
    def one_input(page):
        code = field_named(page, "code")
        assert (code.private_kind, code.type) == ("one_time_code", "text")
        return code

    code = await enter_code(
        browser_stub, vault_stub, as_person, pattern_sites, "/drawn-code", one_input
    )

    assert pattern_sites.outcome("drawn_code", "accepted") == 1
    assert pattern_sites.state.last["drawn_code"]["code"]["sha256"] == sha256(code)
