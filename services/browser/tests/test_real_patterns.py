"""The runner on the web as it is: nodtest.patterns' pages (a shop and a
cross-origin card host) read and driven over gRPC, through the real claims
flow. Each test checks what a caller reads and what the sites received."""

import hashlib
from urllib.parse import urlparse

import grpc
import pyotp

from nod.browser.v1 import browser_pb2 as pb
from nod.claims.v1 import claims_pb2
from nodtest.browser import bound_card, browser_open, enter_request, poll, put_shop_login
from nodtest.claims import CANARY_CARD, CANARY_PASSWORD, put_card

from .test_sessions import refused

SUBMITTED = claims_pb2.CLAIM_STATE_SUBMITTED


def sha256(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def field_named(page: pb.Page, name: str) -> pb.Field:
    return next(f for f in page.fields if f.name == name)


def control(page: pb.Page, text: str) -> pb.Control:
    return next(c for c in page.controls if c.text.startswith(text))


async def read(stub, meta, session_id: str, *, settle: bool = False) -> pb.Page:
    request = pb.ReadPageRequest(session_id=session_id, settle=settle)
    return (await stub.ReadPage(request, metadata=meta)).page


async def click(stub, meta, session_id: str, target: str) -> pb.Page:
    request = pb.ClickRequest(session_id=session_id, target=target)
    return (await stub.Click(request, metadata=meta)).page


async def security_code(vault_stub, meta, code: str = "737") -> str:
    entry = await vault_stub.PutPrivateEntry(
        claims_pb2.PutPrivateEntryRequest(
            task_id="task-1",
            kind=claims_pb2.ENTRY_KIND_SECURITY_CODE,
            fields={"security_code": code},
        ),
        metadata=meta,
    )
    return entry.id


def assert_no_private_value(page: pb.Page, *values: str) -> None:
    shown = str(page)
    for value in values:
        assert value not in shown


# --- hosted card fields in a cross-origin frame ----------------------------


async def test_hosted_card_fields_read_in_their_cross_origin_frame(
    browser_stub, as_person, pattern_sites
):
    _, page = await browser_open(browser_stub, as_person, f"{pattern_sites.url}/checkout")

    main, card = page.frames
    assert (main.frame_id, main.parent_frame_id, main.origin) == ("f0", "", pattern_sites.url)
    assert card.frame_id.startswith("f") and card.frame_id != "f0"
    assert (card.origin, card.parent_frame_id) == (pattern_sites.card_url, "f0")
    assert card.title == "Secure card payment"
    kinds = {
        name: (f.frame_id, f.private_kind, f.masked, f.ref.startswith(f"{card.frame_id}.e"))
        for name in ("cardnumber", "exp-date", "cvc")
        for f in [field_named(page, name)]
    }
    assert kinds == {
        "cardnumber": (card.frame_id, "card_number", True, True),
        "exp-date": (card.frame_id, "card_expiry", True, True),
        "cvc": (card.frame_id, "card_security_code", True, True),
    }
    pay = control(page, "Pay €25.00")
    assert (pay.kind, pay.frame_id) == ("submit", card.frame_id)
    assert page.payment_form_present and not page.login_form_present
    assert "Checkout" in page.headings


async def test_a_card_goes_into_the_cross_origin_frames_and_is_submitted_once(
    browser_stub, claims_stub, vault_stub, as_person, pattern_sites
):
    sites = pattern_sites
    card = await put_card(vault_stub, as_person)
    code_id = await security_code(vault_stub, as_person)
    session_id, page = await browser_open(browser_stub, as_person, f"{sites.url}/checkout")
    request = enter_request(
        session_id,
        card.id,
        claims_pb2.ENTRY_KIND_CARD,
        {
            "number": field_named(page, "cardnumber").ref,
            "expiry": field_named(page, "exp-date").ref,
            "security_code": field_named(page, "cvc").ref,
        },
        control(page, "Pay €25.00").ref,
        companion_entry_id=code_id,
    )
    await bound_card(claims_stub, as_person, request, sites.url)

    reply = await browser_stub.EnterPrivate(request, metadata=as_person)
    # The caller never got the answer and sends the same call again.
    again = await browser_stub.EnterPrivate(request, metadata=as_person)

    assert reply.entered and reply.claim.state == SUBMITTED
    assert not again.entered and again.claim.id == reply.claim.id
    assert sites.count("hosted_card") == 1 and sites.outcome("hosted_card", "paid") == 1
    received = sites.state.last["hosted_card"]
    assert received["cardnumber"]["sha256"] == sha256(CANARY_CARD)
    assert received["exp-date"]["sha256"] == sha256("12/29")
    assert received["cvc"]["sha256"] == sha256("737")

    async def paid():
        after = await read(browser_stub, as_person, session_id)
        return after if "Payment accepted" in after.text else None

    after = await poll(paid, what="the shop's payment verdict")
    assert_no_private_value(after, CANARY_CARD)


# --- a one-time code over six boxes ----------------------------------------


async def test_six_boxes_read_as_one_code_field_and_take_the_code_once(
    browser_stub, vault_stub, as_person, pattern_sites
):
    sites = pattern_sites
    session_id, page = await browser_open(browser_stub, as_person, f"{sites.url}/code")
    (code,) = [f for f in page.fields if f.type == "code_boxes"]
    assert (code.boxes, code.private_kind, code.masked, code.frame_id) == (
        6,
        "one_time_code",
        True,
        "f0",
    )
    assert code.label == "Digit 1 of 6" and page.code_form_present
    assert len(page.fields) == 1  # the other five boxes are part of it
    value = pyotp.TOTP(sites.state.totp_seed).now()
    entry = await vault_stub.PutPrivateEntry(
        claims_pb2.PutPrivateEntryRequest(
            task_id="task-1",
            kind=claims_pb2.ENTRY_KIND_ONE_TIME_CODE,
            fields={"code": value},
            origin=sites.url,
        ),
        metadata=as_person,
    )
    request = enter_request(
        session_id,
        entry.id,
        claims_pb2.ENTRY_KIND_ONE_TIME_CODE,
        {"code": code.ref},
        control(page, "Verify").ref,
    )

    reply = await browser_stub.EnterPrivate(request, metadata=as_person)
    again = await browser_stub.EnterPrivate(request, metadata=as_person)

    assert reply.entered and reply.claim.state == SUBMITTED
    assert not again.entered and again.claim.id == reply.claim.id
    assert sites.count("six_box_code") == 1 and sites.outcome("six_box_code", "accepted") == 1
    assert sites.state.last["six_box_code"]["code"]["sha256"] == sha256(value)
    after = await read(browser_stub, as_person, session_id, settle=True)
    assert urlparse(after.url).path == "/account" and after.sign_out_present


async def test_a_code_that_does_not_fit_the_boxes_is_not_typed(
    browser_stub, vault_stub, as_person, pattern_sites
):
    session_id, page = await browser_open(browser_stub, as_person, f"{pattern_sites.url}/code")
    code = next(f for f in page.fields if f.type == "code_boxes")
    entry = await vault_stub.PutPrivateEntry(
        claims_pb2.PutPrivateEntryRequest(
            task_id="task-1",
            kind=claims_pb2.ENTRY_KIND_ONE_TIME_CODE,
            fields={"code": "12345"},
            origin=pattern_sites.url,
        ),
        metadata=as_person,
    )
    request = enter_request(
        session_id, entry.id, claims_pb2.ENTRY_KIND_ONE_TIME_CODE, {"code": code.ref}, ""
    )

    reply = await browser_stub.EnterPrivate(request, metadata=as_person)

    assert reply.claim.state == claims_pb2.CLAIM_STATE_UNCERTAIN
    assert "does not fit the field's 6 boxes" in reply.claim.reason
    after = await read(browser_stub, as_person, session_id)
    assert not next(f for f in after.fields if f.type == "code_boxes").filled


# --- sign-ins: behind a cookie banner, in a shadow root, in two steps -------


async def test_a_cookie_banner_is_an_overlay_until_accepted_then_the_sign_in_works(
    browser_stub, vault_stub, as_person, pattern_sites
):
    sites = pattern_sites
    item = await put_shop_login(vault_stub, as_person, sites, "ada", CANARY_PASSWORD)
    session_id, page = await browser_open(browser_stub, as_person, f"{sites.url}/banner-login")
    assert page.overlay_present and page.login_form_present and not page.sign_out_present
    assert "We value your privacy" in page.headings

    accepted = await click(browser_stub, as_person, session_id, control(page, "Accept all").ref)

    assert not accepted.overlay_present
    request = enter_request(
        session_id,
        item.id,
        claims_pb2.ENTRY_KIND_SAVED_LOGIN,
        {
            "username": field_named(accepted, "username").ref,
            "password": field_named(accepted, "password").ref,
        },
        control(accepted, "Sign in").ref,
    )
    reply = await browser_stub.EnterPrivate(request, metadata=as_person)

    assert reply.claim.state == SUBMITTED
    assert sites.outcome("banner_login", "signed_in") == 1
    after = await read(browser_stub, as_person, session_id, settle=True)
    assert after.sign_out_present and not after.overlay_present
    assert_no_private_value(after, CANARY_PASSWORD)


async def test_a_sign_in_inside_a_shadow_root_is_read_and_entered(
    browser_stub, vault_stub, as_person, pattern_sites
):
    sites = pattern_sites
    item = await put_shop_login(vault_stub, as_person, sites, "ada", CANARY_PASSWORD)
    session_id, page = await browser_open(browser_stub, as_person, f"{sites.url}/shadow-login")
    username, password = field_named(page, "username"), field_named(page, "password")
    sign_in = control(page, "Sign in")
    assert username.in_shadow_root and password.in_shadow_root
    assert (password.private_kind, username.private_kind) == ("password", "")
    assert (username.label, password.label) == ("Username", "Password")
    assert (sign_in.kind, sign_in.in_shadow_root) == ("button", True)
    assert page.login_form_present

    request = enter_request(
        session_id,
        item.id,
        claims_pb2.ENTRY_KIND_SAVED_LOGIN,
        {"username": username.ref, "password": password.ref},
        sign_in.ref,
    )
    reply = await browser_stub.EnterPrivate(request, metadata=as_person)

    assert reply.claim.state == SUBMITTED

    async def signed_in():
        after = await read(browser_stub, as_person, session_id, settle=True)
        return after if after.sign_out_present else None

    after = await poll(signed_in, what="the account page")
    assert urlparse(after.url).path == "/account"
    assert sites.count("shadow_login") == 1 and sites.outcome("shadow_login", "signed_in") == 1


async def test_a_two_step_sign_in_takes_one_entry_per_step(
    browser_stub, vault_stub, as_person, pattern_sites
):
    sites = pattern_sites
    item = await put_shop_login(vault_stub, as_person, sites, "ada", CANARY_PASSWORD)
    session_id, page = await browser_open(browser_stub, as_person, f"{sites.url}/two-step")
    assert not page.login_form_present

    first = await browser_stub.EnterPrivate(
        enter_request(
            session_id,
            item.id,
            claims_pb2.ENTRY_KIND_SAVED_LOGIN,
            {"username": field_named(page, "username").ref},
            control(page, "Next").ref,
        ),
        metadata=as_person,
    )
    step_two = await read(browser_stub, as_person, session_id, settle=True)
    assert "Enter your password" in step_two.headings and step_two.login_form_present
    second = await browser_stub.EnterPrivate(
        enter_request(
            session_id,
            item.id,
            claims_pb2.ENTRY_KIND_SAVED_LOGIN,
            {"password": field_named(step_two, "password").ref},
            control(step_two, "Sign in").ref,
        ),
        metadata=as_person,
    )

    assert (first.claim.state, second.claim.state) == (SUBMITTED, SUBMITTED)
    assert (sites.count("two_step_username"), sites.count("two_step_password")) == (1, 1)
    after = await read(browser_stub, as_person, session_id, settle=True)
    assert after.sign_out_present and urlparse(after.url).path == "/account"


# --- a bank's confirmation in a popup ---------------------------------------


async def test_the_banks_popup_is_listed_turned_to_and_answered_once(
    browser_stub, claims_stub, vault_stub, as_person, pattern_sites
):
    sites = pattern_sites
    card = await put_card(vault_stub, as_person)
    code_id = await security_code(vault_stub, as_person)
    session_id, page = await browser_open(browser_stub, as_person, f"{sites.url}/pay-3ds")
    # The card goes to the bank in the popup the Pay press opens.
    request = enter_request(
        session_id,
        card.id,
        claims_pb2.ENTRY_KIND_CARD,
        {
            "number": field_named(page, "cardnumber").ref,
            "expiry": field_named(page, "exp-date").ref,
            "security_code": field_named(page, "cvc").ref,
        },
        control(page, "Pay €25.00").ref,
        companion_entry_id=code_id,
    )
    await bound_card(claims_stub, as_person, request, sites.url)
    entered = await browser_stub.EnterPrivate(request, metadata=as_person)
    assert entered.entered and entered.claim.state == SUBMITTED

    async def card_received():
        return sites.count("card_3ds") or None

    # The popup's post may land a moment after the press has returned.
    assert await poll(card_received, what="the card at the bank") == 1
    assert sites.state.last["card_3ds"]["cardnumber"]["sha256"] == sha256(CANARY_CARD)

    async def popup_listed():
        read_now = await read(browser_stub, as_person, session_id, settle=True)
        return read_now if len(read_now.pages) == 2 else None

    opened = await poll(popup_listed, what="the bank's popup")
    assert [(p.page_id, p.current, p.opener_page_id) for p in opened.pages] == [
        ("p0", True, ""),
        ("p1", False, "p0"),
    ]
    turned = (
        await browser_stub.SwitchPage(
            pb.SwitchPageRequest(session_id=session_id, page_id="p1"), metadata=as_person
        )
    ).page
    assert "Confirm with your bank" in turned.headings
    # The bank's answer closes its window: reads go back to the page that opened it.
    await click(browser_stub, as_person, session_id, control(turned, "Confirm").ref)

    async def confirmed():
        after = await read(browser_stub, as_person, session_id, settle=True)
        return after if "Payment confirmed" in after.text else None

    after = await poll(confirmed, what="the shop's verdict")
    assert [p.page_id for p in after.pages] == ["p0"] and after.pages[0].current
    assert sites.count("bank_confirm") == 1 and sites.outcome("bank_confirm", "confirmed") == 1


async def test_actions_in_a_frame_keep_the_runners_refusals(browser_stub, as_person, pattern_sites):
    session_id, page = await browser_open(browser_stub, as_person, f"{pattern_sites.url}/checkout")
    number = field_named(page, "cardnumber")

    typed = await refused(
        browser_stub.TypeText(
            pb.TypeTextRequest(session_id=session_id, target=number.ref, text="4111"),
            metadata=as_person,
        )
    )
    gone = await refused(
        browser_stub.Click(
            pb.ClickRequest(session_id=session_id, target="f99.e1"), metadata=as_person
        )
    )

    assert (typed.code, typed.field) == (grpc.StatusCode.INVALID_ARGUMENT, "target")
    assert (gone.code, gone.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "TARGET_NOT_FOUND")
    after = await read(browser_stub, as_person, session_id)
    assert not field_named(after, "cardnumber").filled
