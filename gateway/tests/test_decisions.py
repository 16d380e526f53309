"""Deciding an app action from the task page: two tabs pressing Yes at the
same moment run it once and both show the outcome (the later press says it
was already decided); No runs nothing; a possible duplicate needs the
explicit second confirmation; and a yes to an action or a payment of a
stopped task does nothing."""

import asyncio
import time
import uuid

import grpc
import psycopg
from google.protobuf.struct_pb2 import Struct
from playwright.async_api import expect

from nod.approvals.v1 import approvals_pb2 as approvals
from nod.approvals.v1 import approvals_pb2_grpc
from nod.claims.v1 import claims_pb2 as claims
from nod.claims.v1 import claims_pb2_grpc
from nod.payments.v1 import payments_pb2 as payments
from nod.payments.v1 import payments_pb2_grpc
from nodtest.database import libpq_url

from .outside import NOTE_TASK, SeenPages, app_received
from .people import ENDED

ALREADY = "already decided"


async def _card(page):
    card = page.locator(".decision", has=page.get_by_role("heading", name="Run this app action?"))
    await expect(card).to_be_visible(timeout=60_000)
    return card


async def _note_task_decided_yes(nod, ada, seen: SeenPages) -> str:
    """The demo note task, decided yes and done; its id."""
    task_id = await ada.start_task(NOTE_TASK)
    card = await _card(ada.page)
    await card.get_by_role("button", name="Yes, run it").click()
    await expect(ada.page.locator(".state-line .badge")).to_have_text("Done", timeout=60_000)
    await seen.keep(ada.page)
    return task_id


async def test_two_tabs_press_yes_at_once_and_it_runs_once(nod, ada):
    seen = SeenPages()
    app = nod.urls["app"]
    before = len(app_received(app))
    task_id = await ada.start_task(NOTE_TASK)
    first = ada.page
    second = await ada.new_tab()
    await second.goto(f"/tasks/{task_id}")
    tabs = (first, second)
    for tab in tabs:
        card = await _card(tab)
        await expect(card).to_contain_text("hello from nod")
        await expect(card).to_contain_text("Demo app")
    await ada.shot("approval-card")

    yes = [tab.get_by_role("button", name="Yes, run it") for tab in tabs]
    await asyncio.gather(*(button.click() for button in yes))

    for number, tab in enumerate(tabs, 1):
        await expect(tab.locator(".state-line .badge")).to_have_text("Done", timeout=60_000)
        await expect(tab.locator(".state-line .message")).to_contain_text("sent")
        said_yes = tab.locator("#timeline .line", has=tab.get_by_text("You said yes", exact=True))
        await expect(said_yes.first).to_be_visible()
        # The step, the decision and its one execution.
        badges = said_yes.first.locator(".badge")
        await expect(badges).to_have_text(["Worked", "You said yes", "Done"])
        assert await tab.locator(".problem").count() == 0
        await ada.shot(f"tab-{number}-after-yes", tab)
    await seen.keep(*tabs)

    received = app_received(app)[before:]
    assert len(received) == 1, received
    assert received[0]["body"] == {"text": "hello from nod"}
    # Exactly one of the tabs lost the race, and says so.
    lost = [await tab.locator("#timeline", has_text=ALREADY).count() for tab in tabs]
    assert sorted(lost) == [0, 1], lost
    # A reload shows the same outcome, from the services.
    for tab in tabs:
        await tab.reload()
        said_yes = tab.locator("#timeline .line", has=tab.get_by_text("You said yes", exact=True))
        await expect(said_yes.first).to_be_visible()
        await expect(tab.get_by_role("button", name="Yes, run it")).to_have_count(0)
    await seen.keep(*tabs)
    assert len(app_received(app)) == before + 1


async def test_no_runs_nothing_and_the_task_says_so(nod, ada):
    app = nod.urls["app"]
    before = len(app_received(app))
    await ada.start_task(NOTE_TASK)
    card = await _card(ada.page)
    await card.get_by_role("button", name="No").click()
    page = ada.page
    await expect(page.get_by_text("You said no", exact=True).first).to_be_visible()
    await ada.shot("said-no")
    await expect(page.locator(".state-line .badge")).to_have_text(ENDED, timeout=60_000)
    await expect(page.locator(".state-line .message")).to_contain_text("not sent")
    line = page.locator("#timeline .line", has=page.get_by_text("You said no", exact=True))
    await expect(line.first).to_be_visible()
    await expect(line.first.locator(".badge")).to_have_text(["Not run", "You said no"])
    await ada.shot("said-no-ended")
    assert len(app_received(app)) == before


def _ending_told(nod, task_id: str, timeout_s: float = 60) -> None:
    """Waits until every service has heard that the task ended: the page
    shows the end first, and an approval proposed before the telling
    reaches the approvals service is cancelled with the task's others."""
    deadline = time.monotonic() + timeout_s
    with psycopg.connect(libpq_url(nod.database_url()), autocommit=True) as conn:
        while time.monotonic() < deadline:
            query = "SELECT cleanup_pending FROM tasks.tasks WHERE id = %s"
            if not conn.execute(query, (task_id,)).fetchone()[0]:
                return
            time.sleep(0.1)
    raise AssertionError(f"task {task_id}'s end was not told within {timeout_s} s")


def _propose_again(nod, task_id: str) -> approvals.Approval:
    """The same saved action proposed again in the same task, as the tasks
    service proposes one (the scripted planner never repeats an action, so
    the test makes the repeat itself, through the approvals service's API)."""
    channel = grpc.insecure_channel(nod.addresses["approvals"])
    try:
        stub = approvals_pb2_grpc.ApprovalsServiceStub(channel)
        meta = nod.meta("ada")
        accounts = stub.ListAccounts(approvals.ListAccountsRequest(), metadata=meta, timeout=10)
        account = next(a for a in accounts.accounts if a.app == "webhook")
        parameters = Struct()
        parameters.update({"text": "hello from nod"})
        reply = stub.Propose(
            approvals.ProposeRequest(
                task_id=task_id, account_id=account.id, action="post", parameters=parameters,
                summary="Send the note “hello from nod” to Demo app, again",
                request_id=f"test-repeat-{uuid.uuid4().hex}",
            ),
            metadata=meta,
            timeout=10,
        )  # fmt: skip
        return reply.approval
    finally:
        channel.close()


async def test_a_possible_duplicate_needs_the_second_confirmation(nod, ada):
    seen = SeenPages()
    app = nod.urls["app"]
    page = ada.page
    task_id = await _note_task_decided_yes(nod, ada, seen)
    before = len(app_received(app))

    # Asked to send it again, the scripted planner does not repeat the action.
    await page.get_by_label("Tell nod what you found, then continue").fill(
        "Send the same note again."
    )
    await page.get_by_role("button", name="Continue").click()
    await expect(page.locator(".run-count")).to_have_text("Run 2", timeout=60_000)
    await expect(page.locator(".state-line .badge")).to_have_text(ENDED, timeout=60_000)
    assert len(app_received(app)) == before

    _ending_told(nod, task_id)
    repeat = _propose_again(nod, task_id)
    assert repeat.possible_duplicate_of
    await page.goto(f"/approvals/{repeat.id}")
    card = await _card(page)
    duplicate = card.locator(".duplicate")
    await expect(duplicate).to_contain_text("This may repeat an earlier action")
    await expect(duplicate.locator(".badge", has_text="You said yes")).to_be_visible()
    await expect(duplicate.locator(".badge", has_text="Done")).to_be_visible()
    await ada.shot("possible-duplicate")
    await seen.keep(page)

    # The browser asks for the tick first; a post without it (a browser
    # that skips the check) is refused by the service, readably.
    await card.get_by_role("button", name="Yes, run it").click()
    await expect(card.get_by_role("button", name="Yes, run it")).to_be_visible()
    await card.locator("input[name=confirm_duplicate]").evaluate("box => box.required = false")
    await card.get_by_role("button", name="Yes, run it").click()
    card = await _card(page)
    await expect(card.locator(".note")).to_contain_text("Yes, I know it may repeat")
    await expect(card.locator(".note")).to_contain_text("Nothing ran")
    await expect(card.get_by_role("button", name="Yes, run it")).to_be_visible()
    await ada.shot("possible-duplicate-refused")
    assert len(app_received(app)) == before

    await card.get_by_label("Yes, I know it may repeat the earlier one").check()
    await card.get_by_role("button", name="Yes, run it").click()
    card = await _card(page)
    # This one's outcome, not the earlier action's (also "You said yes",
    # "Done"), which the card shows until the answer replaces it.
    this_one = card.locator(".outcome", has_text="This one:")
    await expect(this_one).to_contain_text("You said yes")
    await expect(this_one).to_contain_text("Done")
    await ada.shot("possible-duplicate-confirmed")
    await seen.keep(page)
    assert len(app_received(app)) == before + 1

    # It can't be decided again.
    await page.reload()
    await expect(page.get_by_role("button", name="Yes, run it")).to_have_count(0)
    assert len(app_received(app)) == before + 1


async def test_a_yes_to_an_action_or_a_payment_of_a_stopped_task_does_nothing(nod, ada):
    app = nod.urls["app"]
    page = ada.page
    task_id = await ada.start_task(NOTE_TASK)
    await _card(page)
    before = len(app_received(app))
    await page.get_by_role("button", name="Stop this task").click()
    await expect(page.locator(".state-line .badge")).to_have_text("Stopped", timeout=60_000)

    # A proposal of the stopped task that the approvals service still holds
    # open: as when it was down while the Stop was being told, until the
    # tasks service's retry reaches it.
    late = _propose_again(nod, task_id)
    assert late.state == approvals.APPROVAL_STATE_PENDING
    await page.goto(f"/approvals/{late.id}")
    card = await _card(page)
    tick = card.locator("input[name=confirm_duplicate]")
    if await tick.count():
        await tick.check()
    await card.get_by_role("button", name="Yes, run it").click()

    card = await _card(page)
    await expect(card.locator(".note")).to_contain_text("This task was stopped")
    await expect(card.locator(".note")).to_contain_text("did nothing")
    await ada.shot("stopped-task-yes-refused")
    assert len(app_received(app)) == before

    # The same for a payment of the stopped task, from the decisions page.
    payment = _payment_for(nod, task_id)
    await page.goto("/decisions")
    card = page.locator(".decision", has=page.get_by_role("heading", name="Pay this?"))
    await card.get_by_role("button", name="Yes, pay").click()
    await expect(card.locator(".note")).to_contain_text("This task was stopped")
    assert _payment_state(nod, payment.id) == payments.PAYMENT_STATE_AWAITING_CONFIRMATION


def _payment_for(nod, task_id: str, **overrides) -> payments.Payment:
    """A payment of the task waiting for the yes, made through the payments API."""
    meta = nod.meta("ada")
    with grpc.insecure_channel(nod.addresses["claims"]) as channel:
        items = claims_pb2_grpc.VaultServiceStub(channel).ListItems(
            claims.ListItemsRequest(), metadata=meta, timeout=10
        )
    card = next(i for i in items.items if i.kind == claims.ENTRY_KIND_CARD)
    with grpc.insecure_channel(nod.addresses["payments"]) as channel:
        reply = payments_pb2_grpc.PaymentsServiceStub(channel).CreatePayment(
            payments.CreatePaymentRequest(**{
                "request_id": f"test-stopped-{uuid.uuid4().hex}", "task_id": task_id,
                "merchant_origin": nod.urls["shop"], "amount_minor": 2500, "currency": "EUR",
                "description": "Desk lamp", "card_item_id": card.id,
                "card_label": card.fields["number"], **overrides,
            }),
            metadata=meta,
            timeout=10,
        )  # fmt: skip
    return reply.payment


async def test_a_look_alike_shop_is_shown_on_the_yes_as_the_name_it_is(nod, ada):
    # "shоp" with a Cyrillic о: the person must not read it as the shop.
    look_alike = "http://sh\u043ep.example"
    payment = _payment_for(
        nod, f"task-look-alike-{uuid.uuid4()}", merchant_origin=look_alike,
        hosted_payment_origins=["https://p\u0430y.example"],
    )  # fmt: skip
    assert payment.merchant_origin == "http://xn--shp-ted.example"

    page = ada.page
    await page.goto("/decisions")
    card = page.locator(f"#payment-{payment.id}")
    await expect(card).to_contain_text("http://xn--shp-ted.example")
    await expect(card).to_contain_text("https://xn--py-7kc.example")
    assert "sh\u043ep" not in await page.content()


def _payment_state(nod, payment_id: str) -> int:
    with grpc.insecure_channel(nod.addresses["payments"]) as channel:
        reply = payments_pb2_grpc.PaymentsServiceStub(channel).GetPayment(
            payments.GetPaymentRequest(payment_id=payment_id), metadata=nod.meta("ada"), timeout=10
        )
    return reply.payment.state
