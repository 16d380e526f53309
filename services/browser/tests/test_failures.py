"""Entries that can't start or can't finish: no claims service means no
keystroke; a bad target claims nothing; a deadline ends the claim UNCERTAIN,
unless the site had already answered the submission (then it is SUBMITTED);
an end the claims service missed is recorded once it is back."""

import asyncio
import json
import signal
from dataclasses import dataclass

import grpc
import pytest
from aiohttp import web

from nod.browser.v1 import browser_pb2 as pb
from nod.claims.v1 import claims_pb2
from nodkit.client import NodRpcError
from nodtest.addresses import SITE_HOST
from nodtest.browser import (
    browser_login,
    browser_open,
    browser_read,
    claims_of_task,
    control_ref,
    enter_request,
    poll,
    put_shop_login,
)
from nodtest.claims import CANARY_PASSWORD
from nodtest.demo import SHOP_USERNAME, shop_count, shop_wait_for_count
from nodtest.processes import wait_until_serving

RUNNING = claims_pb2.CLAIM_STATE_RUNNING
# The entry deadline of the tests whose site never finishes answering: it
# must outlast typing two fields on a loaded machine (1 s did not).
ENTRY_DEADLINE_S = 4.0


async def get_claim(claims_stub, meta, claim_id):
    request = claims_pb2.GetClaimRequest(claim_id=claim_id)
    return (await claims_stub.GetClaim(request, metadata=meta)).claim


async def test_no_claims_service_means_nothing_is_typed_or_submitted(
    doomed_claims, browser_with, vault_stub, as_person, shop_site
):
    stub = await browser_with(doomed_claims.address)
    item = await put_shop_login(vault_stub, as_person, shop_site, SHOP_USERNAME, CANARY_PASSWORD)
    session_id, page = await browser_open(stub, as_person, f"{shop_site.url}/login")
    doomed_claims.kill(signal.SIGTERM)

    with pytest.raises(grpc.aio.AioRpcError) as failure:
        await browser_login(stub, as_person, session_id, page, item.id)

    error = NodRpcError(failure.value)
    assert error.code == grpc.StatusCode.UNAVAILABLE and error.reason == "CLAIMS_UNAVAILABLE"
    assert "nothing was typed" in error.message
    after = await browser_read(stub, as_person, session_id)
    assert not any(f.filled for f in after.fields)
    assert shop_count(shop_site, "login") == 0


async def test_a_target_not_on_the_page_claims_nothing(
    browser_stub, claims_stub, vault_stub, as_person, shop_site
):
    item = await put_shop_login(vault_stub, as_person, shop_site, SHOP_USERNAME, CANARY_PASSWORD)
    session_id, page = await browser_open(browser_stub, as_person, f"{shop_site.url}/login")
    request = enter_request(
        session_id,
        item.id,
        claims_pb2.ENTRY_KIND_SAVED_LOGIN,
        {"password": "#no-such-field"},
        control_ref(page, "Sign in"),
        operation_id="op-missing-target",
    )

    with pytest.raises(grpc.aio.AioRpcError) as failure:
        await browser_stub.EnterPrivate(request, metadata=as_person)

    error = NodRpcError(failure.value)
    assert error.code == grpc.StatusCode.FAILED_PRECONDITION
    assert error.reason == "TARGET_NOT_FOUND" and error.field == "fields.password"
    assert await claims_of_task(claims_stub, as_person) == []


async def test_an_entry_past_its_deadline_ends_uncertain_and_is_not_pressed_again(
    claims_server, browser_with, vault_stub, as_person, shop_site
):
    # The site holds its answer: the deadline comes while the press waits.
    stub = await browser_with(claims_server, entry_timeout_s=ENTRY_DEADLINE_S)
    item = await put_shop_login(vault_stub, as_person, shop_site, SHOP_USERNAME, CANARY_PASSWORD)
    session_id, page = await browser_open(stub, as_person, f"{shop_site.url}/login")
    shop_site.state.set_mode("login", "hold")

    reply = await browser_login(stub, as_person, session_id, page, item.id, operation_id="op-late")
    again = await browser_login(stub, as_person, session_id, page, item.id, operation_id="op-late")

    assert reply.claim.state == claims_pb2.CLAIM_STATE_UNCERTAIN
    assert reply.claim.reason == "timed out while pressing submit"
    assert not again.entered and again.claim.state == claims_pb2.CLAIM_STATE_UNCERTAIN
    shop_site.state.release()
    assert shop_count(shop_site, "login") == 1


@dataclass
class StallingSite:
    """A sign-in form whose submission is answered at once with a redirect
    to a page that never finishes loading."""

    url: str
    sign_ins: int = 0
    # Requests for the page the answer sends the visitor to: the answer arrived.
    welcomes: int = 0


@pytest.fixture
async def stalling_site():
    never = asyncio.Event()
    app = web.Application()
    site = StallingSite("")

    async def form(request):
        return web.Response(
            content_type="text/html",
            text='<form method="post" action="/login"><input name="username">'
            '<input name="password" type="password"><button type="submit">Sign in</button></form>',
        )

    async def sign_in(request):
        await request.post()
        site.sign_ins += 1
        raise web.HTTPSeeOther("/welcome")

    async def welcome(request):
        site.welcomes += 1
        await never.wait()
        return web.Response(text="too late")

    app.add_routes(
        [web.get("/login", form), web.post("/login", sign_in), web.get("/welcome", welcome)]
    )
    runner = web.AppRunner(app, shutdown_timeout=0.1)
    await runner.setup()
    tcp = web.TCPSite(runner, SITE_HOST, 0)
    await tcp.start()
    site.url = f"http://{SITE_HOST}:{runner.addresses[0][1]}"
    yield site
    never.set()
    await runner.cleanup()


async def test_a_submission_the_site_answered_stays_submitted_when_the_next_page_never_loads(
    claims_peer, browser_with, claims_stub, vault_stub, as_person, stalling_site, log_tee
):
    stub = await browser_with(claims_peer.address, entry_timeout_s=ENTRY_DEADLINE_S)
    item = await put_shop_login(
        vault_stub, as_person, stalling_site, SHOP_USERNAME, CANARY_PASSWORD
    )
    session_id, page = await browser_open(stub, as_person, f"{stalling_site.url}/login")

    reply = await browser_login(stub, as_person, session_id, page, item.id, operation_id="op-stall")
    again = await browser_login(stub, as_person, session_id, page, item.id, operation_id="op-stall")

    assert reply.entered and reply.claim.state == claims_pb2.CLAIM_STATE_SUBMITTED
    assert (await get_claim(claims_stub, as_person, reply.claim.id)).state == reply.claim.state
    assert not again.entered and again.claim.id == reply.claim.id
    assert stalling_site.sign_ins == 1
    # Recorded while the click still waited, yet as part of this entry's call.
    granted = log_line(log_tee.lines, "entry.granted", reply.claim.id)
    finished = log_line(claims_peer.log_text().splitlines(), "claim.finished", reply.claim.id)
    assert finished["state"] == "submitted"
    assert finished["request_id"] == granted["request_id"]


async def test_stop_after_the_site_answered_leaves_the_entry_submitted(
    browser_stub, claims_stub, vault_stub, as_person, stalling_site
):
    item = await put_shop_login(
        vault_stub, as_person, stalling_site, SHOP_USERNAME, CANARY_PASSWORD
    )
    session_id, page = await browser_open(
        browser_stub, as_person, f"{stalling_site.url}/login", task_id="task-stall-stop"
    )
    entering = asyncio.ensure_future(
        browser_login(browser_stub, as_person, session_id, page, item.id, operation_id="op-ss")
    )

    async def answered():
        return stalling_site.welcomes >= 1

    await poll(answered, what="the browser to follow the sign-in's answer")
    closed = await browser_stub.CloseTaskSessions(
        pb.CloseTaskSessionsRequest(task_id="task-stall-stop"), metadata=as_person
    )

    reply = await entering
    assert closed.closed == 1
    assert reply.entered and reply.claim.state == claims_pb2.CLAIM_STATE_SUBMITTED
    assert (await get_claim(claims_stub, as_person, reply.claim.id)).state == reply.claim.state
    assert stalling_site.sign_ins == 1


def log_line(lines: list[str], event: str, claim_id: str) -> dict:
    for line in lines:
        if event in line and claim_id in line:
            entry = json.loads(line)
            if entry["event"] == event and entry.get("claim_id") == claim_id:
                return entry
    raise AssertionError(f"no {event} line for claim {claim_id}")


async def test_an_end_the_claims_service_missed_is_recorded_once_it_is_back(
    doomed_claims, browser_with, claims_stub, vault_stub, as_person, shop_site
):
    stub = await browser_with(doomed_claims.address, end_retry_first_s=0.2, end_retry_max_s=1.0)
    item = await put_shop_login(vault_stub, as_person, shop_site, SHOP_USERNAME, CANARY_PASSWORD)
    session_id, page = await browser_open(stub, as_person, f"{shop_site.url}/login")
    shop_site.state.set_mode("login", "hold")
    entering = asyncio.ensure_future(browser_login(stub, as_person, session_id, page, item.id))
    await shop_wait_for_count(shop_site, "login", 1)  # granted, typed, pressed
    doomed_claims.kill()
    shop_site.state.release()

    with pytest.raises(grpc.aio.AioRpcError) as failure:
        await entering

    error = NodRpcError(failure.value)
    assert error.code == grpc.StatusCode.UNAVAILABLE and error.reason == "CLAIM_END_NOT_RECORDED"
    claim_id = error.metadata["claim_id"]
    assert (await get_claim(claims_stub, as_person, claim_id)).state == RUNNING
    doomed_claims.start()
    await wait_until_serving(doomed_claims.address)

    async def ended():
        claim = await get_claim(claims_stub, as_person, claim_id)
        return claim if claim.state != RUNNING else None

    claim = await poll(ended, timeout_s=60, what="the claim's end to be recorded")
    assert claim.state == claims_pb2.CLAIM_STATE_SUBMITTED
    assert shop_count(shop_site, "login") == 1
