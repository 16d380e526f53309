"""Sign-ins on real web applications nobody here wrote (installed from
PyPI, run on loopback), driven through the tasks service by a model
stand-in that knows no site: it picks fields and buttons only from the
pages ReadPage returned. Each test checks what the site itself recorded:
one sign-in, one code, nothing typed twice; one order paid once (a shop
whose card step is followed by a review page); and the private values in
no request to the model."""

import json
from decimal import Decimal

from nod.claims.v1 import claims_pb2 as claims
from nod.payments.v1 import payments_pb2 as payments
from nod.tasks.v1 import tasks_pb2 as pb
from nodtest.browser import poll
from nodtest.claims import CANARY_CARD, CANARY_PASSWORD
from nodtest.webapps.oscar_shop import DECLINED_CARD

from .agnostic_model import AgnosticModel
from .support import (
    SECURITY_CODE,
    Person,
    begin,
    ended,
    payment_of,
    save_login,
    say_yes_to_payment,
    steps_of,
    submit_security_code,
    tools_and_states,
    type_into_form,
    wait_for,
    waiting,
)


async def test_a_two_factor_admin_sign_in_with_a_code_from_the_saved_seed(
    tasks_with, model_server, demo_person, twofactor_admin_site
):
    site, account = twofactor_admin_site, twofactor_admin_site.account
    await save_login(
        demo_person, site.url, account.username, account.password, totp_seed=account.totp_seed
    )
    model_server.otherwise = AgnosticModel().answer
    stub = await tasks_with(model_url=model_server.url)

    task = await begin(stub, demo_person, f"Sign in to {site.login_url}")
    done = await wait_for(stub, demo_person.meta, task.id, ended, timeout_s=60)

    assert done.state == pb.TASK_STATE_DONE, done.message
    steps = await steps_of(stub, demo_person.meta, task.id)
    assert tools_and_states(steps) == [
        ("navigate", pb.STEP_STATE_DONE),
        ("enter_saved_login", pb.STEP_STATE_DONE),
        ("enter_saved_login", pb.STEP_STATE_DONE),
        ("finish", pb.STEP_STATE_DONE),
    ]
    assert '"check": "worked"' in steps[1].result and '"check": "worked"' in steps[2].result
    # The site's own record: one sign-in, one code accepted, nothing refused.
    assert site.last_login() is not None
    device = site.totp_device()
    assert device.last_t >= 0 and device.throttling_failure_count == 0
    assert site.server.requests("POST", "/account/login/") == [200, 302]
    sent = model_server.everything_sent()
    assert CANARY_PASSWORD not in sent and account.totp_seed not in sent
    assert account.code() not in sent


async def test_a_wrong_saved_password_on_a_real_site_is_typed_once_whatever_the_model_insists(
    tasks_with, model_server, demo_person, twofactor_admin_site
):
    site, account = twofactor_admin_site, twofactor_admin_site.account
    await save_login(demo_person, site.url, account.username, "an-old-password-1")
    model_server.otherwise = AgnosticModel(insist=True).answer
    stub = await tasks_with(model_url=model_server.url)

    task = await begin(stub, demo_person, f"Sign in to {site.login_url}")
    form = await wait_for(
        stub, demo_person.meta, task.id, waiting(pb.WAIT_KIND_PRIVATE_FORM), timeout_s=60
    )
    assert form.wait.form_kind == pb.FORM_KIND_LOGIN
    typed = await type_into_form(
        demo_person, form, {"username": account.username, "password": account.password}
    )
    await stub.SubmitPrivateForm(
        pb.SubmitPrivateFormRequest(task_id=task.id, form_id=form.wait.id, item_id=typed),
        metadata=demo_person.meta,
    )
    await wait_for(stub, demo_person.meta, task.id, ended, timeout_s=60)

    steps = await steps_of(stub, demo_person.meta, task.id)
    entries = [s for s in steps if s.tool == "enter_saved_login"]
    assert [s.state for s in entries] == [pb.STEP_STATE_DONE, pb.STEP_STATE_NOT_RUN]
    assert '"check": "did_not_work"' in entries[0].result
    assert "not entered again" in entries[1].reason
    # The site saw one sign-in attempt (refused, answered 200 on its page).
    assert site.server.requests("POST", "/account/login/") == [200]
    assert site.last_login() is None


async def test_an_emailed_code_sign_in_in_two_pages(
    tasks_with, model_server, demo_person, allauth_code_site
):
    site = allauth_code_site
    await save_login(demo_person, site.url, site.account.email, site.account.password)
    model_server.otherwise = AgnosticModel().answer
    stub = await tasks_with(model_url=model_server.url)

    task = await begin(stub, demo_person, f"Sign in to {site.request_code_url}")
    asked = await wait_for(
        stub, demo_person.meta, task.id, waiting(pb.WAIT_KIND_PRIVATE_FORM), timeout_s=60
    )
    assert asked.wait.form_kind == pb.FORM_KIND_ONE_TIME_CODE
    (code,) = site.codes_sent()  # the person reads the mail and types the code
    entry = await type_into_form(demo_person, asked, {"code": code})
    await stub.SubmitPrivateForm(
        pb.SubmitPrivateFormRequest(task_id=task.id, form_id=asked.wait.id, item_id=entry),
        metadata=demo_person.meta,
    )
    done = await wait_for(stub, demo_person.meta, task.id, ended, timeout_s=60)

    assert done.state == pb.TASK_STATE_DONE, done.message
    tools = [s.tool for s in await steps_of(stub, demo_person.meta, task.id)]
    assert tools == [
        "navigate",
        "enter_saved_login",
        "ask_private_form",
        "enter_from_private_form",
        "finish",
    ]
    assert site.last_login() is not None and len(site.codes_sent()) == 1
    assert code not in model_server.everything_sent()


# --- a real shop's checkout: card step, review page, one order ------------


def buy_task(shop) -> str:
    address = "Grace Hopper, 1 Main Street, London SW1A 1AA"
    return f"Buy {shop.product_url} with my saved card Shopping card, ship to {address}"


async def shop_with_card(person: Person, shop, number: str) -> str:
    """The shop's saved login, and a saved card with that number (its id)."""
    await save_login(person, shop.url, shop.customer.email, shop.customer.password)
    reply = await person.vault.PutItem(
        claims.PutItemRequest(
            item=claims.VaultItem(
                kind=claims.ENTRY_KIND_CARD,
                label="Shopping card",
                fields={"number": number, "expiry": "12/29", "holder_name": "Grace Hopper"},
            )
        ),
        metadata=person.meta,
    )
    return reply.item.id


async def checkout_until_paid(stub, person: Person, task_id: str) -> pb.Task:
    """The person's part: yes to the payment, then the card's security code."""
    asked = await wait_for(
        stub,
        person.meta,
        task_id,
        lambda t: waiting(pb.WAIT_KIND_PAYMENT)(t) or ended(t),
        timeout_s=90,
    )
    assert asked.state == pb.TASK_STATE_WAITING, asked.message
    await say_yes_to_payment(person, asked)
    security = await wait_for(
        stub, person.meta, task_id, lambda t: waiting(pb.WAIT_KIND_PRIVATE_FORM)(t) or ended(t)
    )
    assert security.state == pb.TASK_STATE_WAITING, security.message
    assert security.wait.form_kind == pb.FORM_KIND_SECURITY_CODE
    await submit_security_code(stub, person, security)
    return await wait_for(stub, person.meta, task_id, ended, timeout_s=90)


async def test_a_real_shops_checkout_with_a_review_page_is_paid_once(
    tasks_with, model_server, demo_person, oscar_shop_site, peers, log_tee
):
    shop = oscar_shop_site
    card_id = await shop_with_card(demo_person, shop, CANARY_CARD)
    model_server.otherwise = AgnosticModel().answer
    stub = await tasks_with(model_url=model_server.url)

    task = await begin(stub, demo_person, buy_task(shop))
    done = await checkout_until_paid(stub, demo_person, task.id)

    steps = await steps_of(stub, demo_person.meta, task.id)
    assert done.state == pb.TASK_STATE_DONE, (done.message, tools_and_states(steps))
    tools = [s.tool for s in steps]
    assert tools[-4:] == ["ask_private_form", "pay", "confirm_payment", "finish"]
    pay, confirm = steps[-3], steps[-2]
    assert '"paid": "not_yet"' in pay.result and '"paid": "paid"' in confirm.result
    assert tools.count("confirm_payment") == 1
    # The shop's own record: one order, one payment of its total, nothing declined.
    (order,) = shop.orders()
    assert order.total_incl_tax == Decimal("12.00") and order.email == shop.customer.email
    (source,) = shop.payment_sources()
    assert (source.amount_debited, source.label) == (Decimal("12.00"), "card ending 1111")
    assert shop.declined_payments() == 0
    payment = await payment_of(demo_person, json.loads(pay.arguments)["payment_id"])
    assert (payment.state, payment.outcome) == (
        payments.PAYMENT_STATE_SUBMITTED,
        payments.PAYMENT_OUTCOME_PAID,
    )
    assert (payment.amount_minor, payment.currency, payment.card_item_id) == (1200, "GBP", card_id)
    # The card number and security code reached the shop only.
    sent = model_server.everything_sent()
    logs = [log_tee.text(), *(p.log_text() for p in (peers.claims, peers.browser, peers.payments))]
    for text in (sent, *logs):
        assert CANARY_CARD not in text.replace(" ", "")
        assert f'"{SECURITY_CODE}"' not in text and f"={SECURITY_CODE}" not in text


async def test_a_declined_card_on_a_real_shop_is_declined_once_and_never_placed_again(
    tasks_with, model_server, demo_person, oscar_shop_site
):
    shop = oscar_shop_site
    await shop_with_card(demo_person, shop, DECLINED_CARD)
    model_server.otherwise = AgnosticModel(insist=True).answer
    stub = await tasks_with(model_url=model_server.url)

    task = await begin(stub, demo_person, buy_task(shop))
    done = await checkout_until_paid(stub, demo_person, task.id)

    steps = await steps_of(stub, demo_person.meta, task.id)
    assert done.state == pb.TASK_STATE_DONE, (done.message, tools_and_states(steps))
    assert tools_and_states(steps)[-4:] == [
        ("pay", pb.STEP_STATE_DONE),
        ("confirm_payment", pb.STEP_STATE_DONE),
        ("confirm_payment", pb.STEP_STATE_NOT_RUN),
        ("finish", pb.STEP_STATE_DONE),
    ]
    first, again = steps[-3], steps[-2]
    assert '"paid": "declined"' in first.result
    assert "never placed twice" in again.reason
    payment = await payment_of(demo_person, json.loads(first.arguments)["payment_id"])
    assert (payment.state, payment.outcome) == (
        payments.PAYMENT_STATE_SUBMITTED,
        payments.PAYMENT_OUTCOME_DECLINED,
    )
    assert shop.orders() == [] and shop.payment_sources() == []
    assert shop.declined_payments() == 1


async def test_an_order_left_on_the_review_page_leaves_its_payment_uncertain_not_running(
    tasks_with, model_server, demo_person, oscar_shop_site
):
    shop = oscar_shop_site
    await shop_with_card(demo_person, shop, CANARY_CARD)
    model_server.otherwise = AgnosticModel(place_order=False).answer
    stub = await tasks_with(model_url=model_server.url)

    task = await begin(stub, demo_person, buy_task(shop))
    done = await checkout_until_paid(stub, demo_person, task.id)

    steps = await steps_of(stub, demo_person.meta, task.id)
    assert done.state == pb.TASK_STATE_DONE, (done.message, tools_and_states(steps))
    pay = next(s for s in steps if s.tool == "pay")
    assert '"paid": "not_yet"' in pay.result and "confirm_payment" not in [s.tool for s in steps]
    payment_id = json.loads(pay.arguments)["payment_id"]

    async def settled():
        payment = await payment_of(demo_person, payment_id)
        return payment if payment.state != payments.PAYMENT_STATE_RUNNING else None

    payment = await poll(settled, what="the payment settled at the task's end")
    assert payment.state == payments.PAYMENT_STATE_UNCERTAIN
    assert "never placed" in payment.reason
    assert shop.orders() == [] and shop.payment_sources() == []
