"""One operation, one submission (G2, G4, G5): concurrent resends, a site
that drops the connection after receiving the form, Stop mid-entry, and an
operation id reused for another entry."""

import asyncio
import json

import grpc
import pytest

from nod.browser.v1 import browser_pb2 as pb
from nod.claims.v1 import claims_pb2
from nodkit.client import NodRpcError
from nodtest.addresses import OTHER_SITE_HOST, SITE_HOST
from nodtest.browser import (
    bound_card,
    browser_login,
    browser_open,
    enter_request,
    field_ref,
    put_shop_login,
)
from nodtest.claims import CANARY_PASSWORD, op_id, put_card
from nodtest.demo import SHOP_USERNAME, shop_count, shop_wait_for_count

FINAL = (claims_pb2.CLAIM_STATE_SUBMITTED, claims_pb2.CLAIM_STATE_UNCERTAIN)


async def login_page(browser_stub, vault_stub, meta, shop, task_id="task-1"):
    item = await put_shop_login(vault_stub, meta, shop, SHOP_USERNAME, CANARY_PASSWORD)
    session_id, page = await browser_open(browser_stub, meta, f"{shop.url}/login", task_id)
    return item, session_id, page


async def get_claim(claims_stub, meta, claim_id):
    request = claims_pb2.GetClaimRequest(claim_id=claim_id)
    return (await claims_stub.GetClaim(request, metadata=meta)).claim


async def test_ten_concurrent_entries_of_one_operation_submit_once(
    browser_stub, vault_stub, as_person, shop_site
):
    item, session_id, page = await login_page(browser_stub, vault_stub, as_person, shop_site)
    operation_id = op_id()

    replies = await asyncio.gather(
        *(
            browser_login(
                browser_stub, as_person, session_id, page, item.id, operation_id=operation_id
            )
            for _ in range(10)
        )
    )

    assert sum(r.entered for r in replies) == 1
    assert len({r.claim.id for r in replies}) == 1
    entered = next(r for r in replies if r.entered)
    assert entered.claim.state == claims_pb2.CLAIM_STATE_SUBMITTED
    assert shop_count(shop_site, "login") == 1


async def test_a_dropped_connection_after_the_submission_is_never_submitted_again(
    browser_stub, claims_stub, vault_stub, as_person, shop_site, log_tee
):
    item, session_id, page = await login_page(browser_stub, vault_stub, as_person, shop_site)
    shop_site.state.set_mode("login", "drop")
    operation_id = op_id()

    first = await browser_login(
        browser_stub, as_person, session_id, page, item.id, operation_id=operation_id
    )

    assert first.entered and first.claim.state in FINAL
    assert shop_count(shop_site, "login") == 1  # Chromium alone would have sent it twice
    # The guard's line is about this session, its task and this entry's call.
    granted = _logged(log_tee.lines, "entry.granted", claim_id=first.claim.id)
    dropped = _logged(log_tee.lines, "request_guard.no_answer", session_id=session_id)
    assert dropped["method"] == "POST" and dropped["task_id"] == "task-1"
    assert dropped["request_id"] == granted["request_id"]
    shop_site.state.set_mode("login", "ok")
    # Chromium may still be reloading its error page for the dropped post:
    # a navigation it interrupts is made again (a page load, no entry).
    for _ in range(3):
        try:
            await browser_stub.Navigate(
                pb.NavigateRequest(session_id=session_id, url=f"{shop_site.url}/login"),
                metadata=as_person,
            )
            break
        except grpc.aio.AioRpcError as error:
            if "interrupted by another navigation" not in (error.details() or ""):
                raise
            await asyncio.sleep(0.5)
    again = await browser_login(
        browser_stub, as_person, session_id, page, item.id, operation_id=operation_id
    )
    assert not again.entered and again.claim.id == first.claim.id
    assert shop_count(shop_site, "login") == 1
    stored = await get_claim(claims_stub, as_person, first.claim.id)
    assert stored.state == first.claim.state


def _logged(lines: list[str], event: str, **keys: str) -> dict:
    for line in lines:
        if event in line:
            entry = json.loads(line)
            if entry["event"] == event and keys.items() <= entry.items():
                return entry
    raise AssertionError(f"no {event} line with {keys}")


async def test_stop_mid_entry_ends_the_claim_and_never_enters_again(
    browser_stub, claims_stub, vault_stub, as_person, shop_site
):
    item, session_id, page = await login_page(
        browser_stub, vault_stub, as_person, shop_site, task_id="task-stop"
    )
    shop_site.state.set_mode("login", "hold")
    entering = asyncio.ensure_future(
        browser_login(browser_stub, as_person, session_id, page, item.id)
    )
    await shop_wait_for_count(shop_site, "login", 1)

    closed = await browser_stub.CloseTaskSessions(
        pb.CloseTaskSessionsRequest(task_id="task-stop"), metadata=as_person
    )

    reply = await entering
    assert closed.closed == 1
    assert reply.entered and reply.claim.state in FINAL
    assert (await get_claim(claims_stub, as_person, reply.claim.id)).state == reply.claim.state
    shop_site.state.release()
    assert shop_count(shop_site, "login") == 1


async def test_an_operation_id_reused_for_another_entry_is_refused(
    browser_stub, claims_stub, vault_stub, as_person, shop_site
):
    """The claims service's reuse rule, all of it: the same card with another
    security code is another entry, not a resend."""
    card = await put_card(vault_stub, as_person)
    codes = [
        await vault_stub.PutPrivateEntry(
            claims_pb2.PutPrivateEntryRequest(
                task_id="task-1",
                kind=claims_pb2.ENTRY_KIND_SECURITY_CODE,
                fields={"security_code": code},
            ),
            metadata=as_person,
        )
        for code in ("737", "738")
    ]
    session_id, page = await browser_open(browser_stub, as_person, f"{shop_site.url}/checkout")
    operation_id = op_id()

    def entry(companion_entry_id: str) -> pb.EnterPrivateRequest:
        fields = {"number": field_ref(page, "card_number"), "security_code": field_ref(page, "cvc")}
        return enter_request(
            session_id,
            card.id,
            claims_pb2.ENTRY_KIND_CARD,
            fields,
            "",
            operation_id=operation_id,
            companion_entry_id=companion_entry_id,
        )

    await bound_card(claims_stub, as_person, entry(codes[0].id), shop_site.url)
    first = await browser_stub.EnterPrivate(entry(codes[0].id), metadata=as_person)
    with pytest.raises(grpc.aio.AioRpcError) as failure:
        await browser_stub.EnterPrivate(entry(codes[1].id), metadata=as_person)

    assert first.entered
    error = NodRpcError(failure.value)
    assert error.code == grpc.StatusCode.ALREADY_EXISTS
    assert error.reason == "OPERATION_ID_REUSED"


async def test_a_resend_from_a_page_of_another_origin_is_answered_from_the_record(
    browser_stub, vault_stub, as_person, shop_site
):
    item, session_id, page = await login_page(browser_stub, vault_stub, as_person, shop_site)
    operation_id = op_id()
    first = await browser_login(
        browser_stub, as_person, session_id, page, item.id, operation_id=operation_id
    )
    elsewhere = shop_site.url.replace(SITE_HOST, OTHER_SITE_HOST) + "/login"
    moved = await browser_stub.Navigate(
        pb.NavigateRequest(session_id=session_id, url=elsewhere), metadata=as_person
    )

    again = await browser_login(
        browser_stub, as_person, session_id, moved.page, item.id, operation_id=operation_id
    )

    assert moved.page.url.startswith(f"http://{OTHER_SITE_HOST}:")
    assert moved.page.login_form_present
    assert not again.entered and again.claim.id == first.claim.id
    assert again.claim.state == claims_pb2.CLAIM_STATE_SUBMITTED
    assert shop_count(shop_site, "login") == 1
