"""Cards and passwords: a payment entered under a card claim, read back
masked, and the canary values in no log line, page read or reply but the grant."""

import hashlib

import grpc
import pytest

from nod.browser.v1 import browser_pb2 as pb
from nod.claims.v1 import claims_pb2
from nodtest.browser import (
    bound_card,
    browser_login,
    browser_open,
    browser_read,
    control_ref,
    enter_request,
    put_shop_login,
)
from nodtest.browser import field_ref as ref
from nodtest.claims import CANARY_CARD, CANARY_PASSWORD, put_card
from nodtest.demo import SHOP_USERNAME

CARD_FIELDS = {"number": "card_number", "expiry": "expiry", "holder_name": "holder"}


async def pay(browser_stub, claims_stub, vault_stub, meta, shop, *, number=CANARY_CARD, press=True):
    card = await put_card(vault_stub, meta, number=number)
    code = await vault_stub.PutPrivateEntry(
        claims_pb2.PutPrivateEntryRequest(
            task_id="task-1",
            kind=claims_pb2.ENTRY_KIND_SECURITY_CODE,
            fields={"security_code": "737"},
        ),
        metadata=meta,
    )
    session_id, page = await browser_open(browser_stub, meta, f"{shop.url}/checkout")
    fields = {name: ref(page, field) for name, field in CARD_FIELDS.items()}
    fields["security_code"] = ref(page, "cvc")
    request = enter_request(
        session_id,
        card.id,
        claims_pb2.ENTRY_KIND_CARD,
        fields,
        control_ref(page, "Pay") if press else "",
        companion_entry_id=code.id,
    )
    await bound_card(claims_stub, meta, request, shop.url)
    reply = await browser_stub.EnterPrivate(request, metadata=meta)
    return reply, await browser_read(browser_stub, meta, session_id)


def assert_no_canary(*texts: str) -> None:
    for text in texts:
        assert CANARY_PASSWORD not in text
        assert CANARY_CARD not in text


async def test_a_card_payment_is_accepted_and_reads_back_without_the_number(
    browser_stub, claims_stub, vault_stub, as_person, shop_site
):
    reply, page = await pay(browser_stub, claims_stub, vault_stub, as_person, shop_site)

    assert reply.entered and reply.claim.state == claims_pb2.CLAIM_STATE_SUBMITTED
    assert [n.text for n in page.notices if n.kind == "success"] == ["Payment accepted"]
    received = shop_site.state.snapshot()["last"]["checkout"]
    assert received["card_number"]["sha256"] == hashlib.sha256(CANARY_CARD.encode()).hexdigest()
    assert received["cvc"]["length"] == 3
    assert_no_canary(str(reply), str(page))


async def test_a_declined_card_is_submitted_and_the_page_says_declined(
    browser_stub, claims_stub, vault_stub, as_person, shop_site
):
    reply, page = await pay(
        browser_stub, claims_stub, vault_stub, as_person, shop_site, number="4000000000000002"
    )

    assert reply.claim.state == claims_pb2.CLAIM_STATE_SUBMITTED
    assert "Card declined" in [n.text for n in page.notices if n.kind == "error"]
    assert page.payment_form_present


async def test_filled_card_fields_read_back_masked(
    browser_stub, claims_stub, vault_stub, as_person, shop_site
):
    reply, page = await pay(
        browser_stub, claims_stub, vault_stub, as_person, shop_site, press=False
    )

    assert reply.claim.state == claims_pb2.CLAIM_STATE_SUBMITTED
    card_fields = [f for f in page.fields if f.form_ref]
    assert card_fields and all(f.masked and f.filled and f.value == "" for f in card_fields)
    assert shop_site.state.snapshot()["counts"]["checkout"] == 0
    assert_no_canary(str(page))


async def test_the_canaries_appear_in_no_log_line_reply_or_page(
    browser_stub, claims_stub, vault_stub, as_person, shop_site, log_tee, claims_peer
):
    item = await put_shop_login(vault_stub, as_person, shop_site, SHOP_USERNAME, CANARY_PASSWORD)
    session_id, page = await browser_open(browser_stub, as_person, f"{shop_site.url}/login")
    login = await browser_login(browser_stub, as_person, session_id, page, item.id)
    typed = await vault_stub.PutPrivateEntry(
        claims_pb2.PutPrivateEntryRequest(
            task_id="task-1",
            kind=claims_pb2.ENTRY_KIND_TYPED_PASSWORD,
            fields={"username": SHOP_USERNAME, "password": CANARY_PASSWORD},
            origin=shop_site.url,
        ),
        metadata=as_person,
    )
    page = (
        await browser_stub.Navigate(
            pb.NavigateRequest(session_id=session_id, url=f"{shop_site.url}/login"),
            metadata=as_person,
        )
    ).page
    request = enter_request(
        session_id,
        typed.id,
        claims_pb2.ENTRY_KIND_TYPED_PASSWORD,
        {"username": ref(page, "username"), "password": ref(page, "password")},
        control_ref(page, "Sign in"),
    )
    wrong = await browser_stub.EnterPrivate(request, metadata=as_person)
    paid, paid_page = await pay(browser_stub, claims_stub, vault_stub, as_person, shop_site)

    after = await browser_read(browser_stub, as_person, session_id)
    assert login.claim.state == wrong.claim.state == paid.claim.state
    assert paid.claim.state == claims_pb2.CLAIM_STATE_SUBMITTED
    assert log_tee.lines, "the browser's log lines are captured"
    assert "claim.finished" in claims_peer.log_text(), "the claims service's log is read"
    assert_no_canary(
        str(login),
        str(wrong),
        str(paid),
        str(paid_page),
        str(after),
        log_tee.text(),
        claims_peer.log_text(),
    )


@pytest.mark.parametrize("target", ["#pin", "#widget-pin"], ids=["page", "shadow-root"])
async def test_a_field_named_by_a_css_selector_is_private_once_entered(
    browser_stub, vault_stub, as_person, shop_site, target
):
    """Marked before the first keystroke, wherever the selector finds it
    (also where only Playwright's engine looks: a shadow root)."""
    entry = await vault_stub.PutPrivateEntry(
        claims_pb2.PutPrivateEntryRequest(
            task_id="task-1",
            kind=claims_pb2.ENTRY_KIND_ONE_TIME_CODE,
            fields={"code": "482913"},
            origin=shop_site.url,
        ),
        metadata=as_person,
    )
    session_id, page = await browser_open(browser_stub, as_person, f"{shop_site.url}/pin")
    assert not next(f for f in page.fields if f.name == "pin").masked

    reply = await browser_stub.EnterPrivate(
        enter_request(
            session_id, entry.id, claims_pb2.ENTRY_KIND_ONE_TIME_CODE, {"code": target}, ""
        ),
        metadata=as_person,
    )

    assert reply.entered and reply.claim.state == claims_pb2.CLAIM_STATE_SUBMITTED
    with pytest.raises(grpc.aio.AioRpcError) as failure:
        await browser_stub.TypeText(
            pb.TypeTextRequest(session_id=session_id, target=target, text="x"),
            metadata=as_person,
        )
    assert failure.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    after = await browser_read(browser_stub, as_person, session_id)
    [pin] = [f for f in after.fields if f.name == "pin"]
    assert pin.masked == (target == "#pin") and pin.filled == (target == "#pin")
    assert "482913" not in str(after)
