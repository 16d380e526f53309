"""A sign-in with a one-time-code step: the code typed by the person (a
one-time private entry), or computed from a saved login's totp_seed."""

import pyotp
import pytest

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
from nodtest.demo import SHOP_TOTP_SEED, SHOP_TOTP_USERNAME, shop_count


@pytest.fixture
async def seeded_shop():
    """The shop, its code-step account with a seed of its own: a code is
    given once per account, wherever its seed is saved, so a seed shared
    with other tests' sign-ins would share their time steps too."""
    from nod_demo.shop import Account, start_shop

    seed = pyotp.random_base32(32)
    shop = await start_shop([Account(SHOP_TOTP_USERNAME, CANARY_PASSWORD, seed)])
    yield shop, seed
    await shop.close()


async def sign_in_to_code_step(browser_stub, vault_stub, meta, shop, *, totp_seed=None):
    item = await put_shop_login(
        vault_stub, meta, shop, SHOP_TOTP_USERNAME, CANARY_PASSWORD, totp_seed=totp_seed
    )
    session_id, page = await browser_open(browser_stub, meta, f"{shop.url}/login")
    reply = await browser_login(browser_stub, meta, session_id, page, item.id)
    assert reply.claim.state == claims_pb2.CLAIM_STATE_SUBMITTED
    page = await browser_read(browser_stub, meta, session_id)
    assert page.code_form_present and not page.login_form_present
    return item, session_id, page


async def test_a_code_typed_by_the_person_is_entered_once(
    browser_stub, vault_stub, as_person, shop_site
):
    _, session_id, page = await sign_in_to_code_step(browser_stub, vault_stub, as_person, shop_site)
    entry = await vault_stub.PutPrivateEntry(
        claims_pb2.PutPrivateEntryRequest(
            task_id="task-1",
            kind=claims_pb2.ENTRY_KIND_ONE_TIME_CODE,
            fields={"code": pyotp.TOTP(SHOP_TOTP_SEED).now()},
            origin=shop_site.url,
        ),
        metadata=as_person,
    )
    request = enter_request(
        session_id,
        entry.id,
        claims_pb2.ENTRY_KIND_ONE_TIME_CODE,
        {"code": field_ref(page, "code")},
        control_ref(page, "Verify"),
    )

    reply = await browser_stub.EnterPrivate(request, metadata=as_person)
    again = await browser_stub.EnterPrivate(request, metadata=as_person)

    assert reply.entered and reply.claim.state == claims_pb2.CLAIM_STATE_SUBMITTED
    assert not again.entered and again.claim.id == reply.claim.id
    after = await browser_read(browser_stub, as_person, session_id)
    assert f"Signed in as {SHOP_TOTP_USERNAME}" in after.text
    assert shop_count(shop_site, "otp") == 1


async def test_a_saved_login_with_a_seed_enters_the_current_code(
    browser_stub, vault_stub, as_person, seeded_shop
):
    shop, seed = seeded_shop
    item, session_id, page = await sign_in_to_code_step(
        browser_stub, vault_stub, as_person, shop, totp_seed=seed
    )
    request = enter_request(
        session_id,
        item.id,
        claims_pb2.ENTRY_KIND_SAVED_LOGIN,
        {"totp_code": field_ref(page, "code")},
        control_ref(page, "Verify"),
    )

    reply = await browser_stub.EnterPrivate(request, metadata=as_person)

    assert reply.claim.state == claims_pb2.CLAIM_STATE_SUBMITTED
    after = await browser_read(browser_stub, as_person, session_id)
    assert after.url.endswith("/account") and SHOP_TOTP_USERNAME in after.text


async def test_a_login_without_a_seed_asked_for_a_code_ends_uncertain_having_typed_nothing(
    browser_stub, vault_stub, as_person, shop_site
):
    item, session_id, page = await sign_in_to_code_step(
        browser_stub, vault_stub, as_person, shop_site
    )
    request = enter_request(
        session_id,
        item.id,
        claims_pb2.ENTRY_KIND_SAVED_LOGIN,
        {"totp_code": field_ref(page, "code")},
        control_ref(page, "Verify"),
    )

    reply = await browser_stub.EnterPrivate(request, metadata=as_person)

    assert reply.claim.state == claims_pb2.CLAIM_STATE_UNCERTAIN
    assert "no totp_code" in reply.claim.reason
    after = await browser_read(browser_stub, as_person, session_id)
    assert not next(f for f in after.fields if f.name == "code").filled
    assert shop_count(shop_site, "otp") == 0


async def test_a_second_sign_in_in_the_same_window_waits_for_the_next_code(
    browser_stub, vault_stub, as_person, seeded_shop
):
    """A site refuses a code used before (RFC 6238, 5.2): the claims service
    gives each time step's code once per account, so the second entry gets
    the next step's code and types it when that step begins."""
    shop_site, seed = seeded_shop
    item, first_session, first_page = await sign_in_to_code_step(
        browser_stub, vault_stub, as_person, shop_site, totp_seed=seed
    )
    second_session, second_page = await browser_open(
        browser_stub, as_person, f"{shop_site.url}/login"
    )
    await browser_login(browser_stub, as_person, second_session, second_page, item.id)
    second_page = await browser_read(browser_stub, as_person, second_session)

    replies = []
    for session_id, page in ((first_session, first_page), (second_session, second_page)):
        request = enter_request(
            session_id,
            item.id,
            claims_pb2.ENTRY_KIND_SAVED_LOGIN,
            {"totp_code": field_ref(page, "code")},
            control_ref(page, "Verify"),
        )
        replies.append(await browser_stub.EnterPrivate(request, metadata=as_person, timeout=60))

    assert [r.claim.state for r in replies] == [claims_pb2.CLAIM_STATE_SUBMITTED] * 2
    for session_id in (first_session, second_session):
        after = await browser_read(browser_stub, as_person, session_id)
        assert after.url.endswith("/account"), after.text
    # Two codes accepted: the shop refuses one it accepted before.
    assert shop_count(shop_site, "otp") == 2
