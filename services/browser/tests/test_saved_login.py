"""A saved login entered into the demo shop, then checked by reading the page
(G1, G3, G6): the entry says SUBMITTED, the page says whether it worked."""

from nod.claims.v1 import claims_pb2
from nodtest.browser import browser_login, browser_open, browser_read, put_shop_login
from nodtest.claims import CANARY_PASSWORD
from nodtest.demo import SHOP_USERNAME, shop_count


def check_from(page) -> int:
    """How nod reads the outcome of a login: signed in, or the form is back."""
    if page.login_form_present or any(n.kind == "error" for n in page.notices):
        return claims_pb2.CHECK_RESULT_DID_NOT_WORK
    if "Signed in as" in page.text:
        return claims_pb2.CHECK_RESULT_WORKED
    return claims_pb2.CHECK_RESULT_UNCLEAR


async def record_check(claims_stub, meta, claim_id, check):
    request = claims_pb2.RecordCheckRequest(claim_id=claim_id, check=check)
    return (await claims_stub.RecordCheck(request, metadata=meta)).claim


async def test_a_saved_login_gets_in_and_the_check_says_worked(
    browser_stub, claims_stub, vault_stub, as_person, shop_site
):
    item = await put_shop_login(vault_stub, as_person, shop_site, SHOP_USERNAME, CANARY_PASSWORD)
    session_id, page = await browser_open(browser_stub, as_person, f"{shop_site.url}/login")
    assert page.login_form_present

    reply = await browser_login(browser_stub, as_person, session_id, page, item.id)

    assert reply.entered
    assert reply.claim.state == claims_pb2.CLAIM_STATE_SUBMITTED
    after = await browser_read(browser_stub, as_person, session_id)
    assert after.url.endswith("/account") and f"Signed in as {SHOP_USERNAME}" in after.text
    assert not after.login_form_present
    assert shop_count(shop_site, "login") == 1
    checked = await record_check(claims_stub, as_person, reply.claim.id, check_from(after))
    assert checked.check == claims_pb2.CHECK_RESULT_WORKED
    assert checked.state == claims_pb2.CLAIM_STATE_SUBMITTED


async def test_a_wrong_password_is_submitted_and_the_check_says_did_not_work(
    browser_stub, claims_stub, vault_stub, as_person, shop_site
):
    item = await put_shop_login(vault_stub, as_person, shop_site, SHOP_USERNAME, "not-the-pw-1")
    session_id, page = await browser_open(browser_stub, as_person, f"{shop_site.url}/login")

    reply = await browser_login(browser_stub, as_person, session_id, page, item.id)

    assert reply.claim.state == claims_pb2.CLAIM_STATE_SUBMITTED
    after = await browser_read(browser_stub, as_person, session_id)
    assert after.login_form_present
    assert [n.text for n in after.notices if n.kind == "error"] == ["Wrong username or password"]
    checked = await record_check(claims_stub, as_person, reply.claim.id, check_from(after))
    assert checked.check == claims_pb2.CHECK_RESULT_DID_NOT_WORK
