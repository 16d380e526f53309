"""The web patterns no installable application offers (nodtest.patterns: a
cookie banner over a sign-in, a sign-in in a shadow root, a two-step
sign-in, a six-box code, hosted card fields in a cross-origin frame, a
bank's 3-D Secure popup), driven through the tasks service by the model
stand-in that knows no site (agnostic_model.py). Each test checks what the
pattern site itself recorded (one sign-in, one code, one card submission,
and its outcome), the task's end and steps, and that no private value
reached the model or any service's log."""

import json
import re
import time

import aiohttp
import pyotp

from nod.claims.v1 import claims_pb2 as claims
from nod.payments.v1 import payments_pb2 as payments
from nod.tasks.v1 import tasks_pb2 as pb
from nodtest.claims import CANARY_CARD, CANARY_PASSWORD
from nodtest.patterns import TOTP_SEED, PatternSites

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

DONE = pb.STEP_STATE_DONE


def codes_around_now() -> set[str]:
    """Every code the site would take now: none may be shown to anyone."""
    totp = pyotp.TOTP(TOTP_SEED)
    now = int(time.time()) // totp.interval
    return {totp.generate_otp(step) for step in range(now - 2, now + 3)}


def shown_in(secret: str, text: str) -> bool:
    """A number (a code, a card) as a value of its own, not digits inside a
    longer token: a six-digit code is bound to turn up in some timestamp's
    microseconds or some hex id among thousands of log lines. Anything
    else anywhere."""
    if not secret.isdigit():
        return secret in text
    return re.search(rf"(?<![0-9A-Za-z.]){secret}(?![0-9A-Za-z])", text) is not None


def assert_kept_private(secrets: list[str], model_server, log_tee, peers) -> None:
    """No private value in a model request or in a service's log."""
    logs = [log_tee.text(), *(p.log_text() for p in (peers.claims, peers.browser, peers.payments))]
    for text in (model_server.everything_sent(), *logs):
        for secret in secrets:
            assert not shown_in(secret, text.replace(" ", ""))


async def signed_in_with_saved_login(stub, person: Person, sites: PatternSites, path: str):
    await save_login(person, sites.url, sites.state.username, sites.state.password)
    task = await begin(stub, person, f"Sign in to {sites.url}{path}")
    done = await wait_for(stub, person.meta, task.id, ended, timeout_s=60)
    steps = await steps_of(stub, person.meta, task.id)
    assert done.state == pb.TASK_STATE_DONE, (done.message, tools_and_states(steps))
    return steps


# --- sign-ins ---------------------------------------------------------------


async def test_a_cookie_banner_is_dismissed_then_the_saved_login_signs_in_once(
    tasks_with, model_server, demo_person, pattern_sites, peers, log_tee
):
    model_server.otherwise = AgnosticModel().answer
    stub = await tasks_with(model_url=model_server.url)

    steps = await signed_in_with_saved_login(stub, demo_person, pattern_sites, "/banner-login")

    assert tools_and_states(steps) == [
        ("navigate", DONE),
        ("click", DONE),
        ("enter_saved_login", DONE),
        ("finish", DONE),
    ]
    assert "Accept all" in steps[0].result  # the banner the model saw, and dismissed
    assert '"check": "worked"' in steps[2].result
    sites = pattern_sites
    assert sites.count("banner_login") == 1 and sites.outcome("banner_login", "signed_in") == 1
    assert_kept_private([CANARY_PASSWORD], model_server, log_tee, peers)


async def test_a_sign_in_inside_a_shadow_root_with_the_saved_login(
    tasks_with, model_server, demo_person, pattern_sites, peers, log_tee
):
    model_server.otherwise = AgnosticModel().answer
    stub = await tasks_with(model_url=model_server.url)

    steps = await signed_in_with_saved_login(stub, demo_person, pattern_sites, "/shadow-login")

    assert tools_and_states(steps) == [
        ("navigate", DONE),
        ("enter_saved_login", DONE),
        ("finish", DONE),
    ]
    assert '"check": "worked"' in steps[1].result
    sites = pattern_sites
    assert sites.count("shadow_login") == 1 and sites.outcome("shadow_login", "signed_in") == 1
    assert_kept_private([CANARY_PASSWORD], model_server, log_tee, peers)


async def test_a_two_step_sign_in_types_the_username_then_the_password_once_each(
    tasks_with, model_server, demo_person, pattern_sites, peers, log_tee
):
    model_server.otherwise = AgnosticModel().answer
    stub = await tasks_with(model_url=model_server.url)

    steps = await signed_in_with_saved_login(stub, demo_person, pattern_sites, "/two-step")

    assert tools_and_states(steps) == [
        ("navigate", DONE),
        ("enter_saved_login", DONE),
        ("enter_saved_login", DONE),
        ("finish", DONE),
    ]
    username_step, password_step = (json.loads(s.arguments)["fields"] for s in steps[1:3])
    assert set(username_step) == {"username"} and set(password_step) == {"password"}
    assert '"check": "worked"' in steps[1].result and '"check": "worked"' in steps[2].result
    sites = pattern_sites
    assert (sites.count("two_step_username"), sites.count("two_step_password")) == (1, 1)
    assert sites.outcome("two_step_username", "known") == 1
    assert sites.outcome("two_step_password", "signed_in") == 1
    assert_kept_private([CANARY_PASSWORD], model_server, log_tee, peers)


# --- a one-time code over six boxes ------------------------------------------


async def test_a_code_from_the_saved_seed_goes_into_the_six_boxes_once(
    tasks_with, model_server, demo_person, pattern_sites, peers, log_tee
):
    sites = pattern_sites
    await save_login(
        demo_person, sites.url, sites.state.username, sites.state.password, totp_seed=TOTP_SEED
    )
    model_server.otherwise = AgnosticModel().answer
    stub = await tasks_with(model_url=model_server.url)

    task = await begin(stub, demo_person, f"Sign in to {sites.url}/code")
    done = await wait_for(stub, demo_person.meta, task.id, ended, timeout_s=60)

    steps = await steps_of(stub, demo_person.meta, task.id)
    assert done.state == pb.TASK_STATE_DONE, (done.message, tools_and_states(steps))
    assert tools_and_states(steps) == [
        ("navigate", DONE),
        ("enter_saved_login", DONE),
        ("finish", DONE),
    ]
    assert set(json.loads(steps[1].arguments)["fields"]) == {"totp_code"}
    assert '"check": "worked"' in steps[1].result
    assert sites.count("six_box_code") == 1 and sites.outcome("six_box_code", "accepted") == 1
    assert sites.state.last["six_box_code"]["code"]["length"] == 6
    assert_kept_private([TOTP_SEED, *codes_around_now()], model_server, log_tee, peers)


async def test_a_code_the_person_types_goes_into_the_six_boxes_once(
    tasks_with, model_server, demo_person, pattern_sites, peers, log_tee
):
    sites = pattern_sites
    model_server.otherwise = AgnosticModel().answer
    stub = await tasks_with(model_url=model_server.url)

    task = await begin(stub, demo_person, f"Sign in to {sites.url}/code")
    asked = await wait_for(
        stub, demo_person.meta, task.id, waiting(pb.WAIT_KIND_PRIVATE_FORM), timeout_s=60
    )
    assert asked.wait.form_kind == pb.FORM_KIND_ONE_TIME_CODE
    code = pyotp.TOTP(TOTP_SEED).now()  # read off the person's authenticator
    entry = await type_into_form(demo_person, asked, {"code": code})
    await stub.SubmitPrivateForm(
        pb.SubmitPrivateFormRequest(task_id=task.id, form_id=asked.wait.id, item_id=entry),
        metadata=demo_person.meta,
    )
    done = await wait_for(stub, demo_person.meta, task.id, ended, timeout_s=60)

    steps = await steps_of(stub, demo_person.meta, task.id)
    assert done.state == pb.TASK_STATE_DONE, (done.message, tools_and_states(steps))
    assert tools_and_states(steps) == [
        ("navigate", DONE),
        ("ask_private_form", DONE),
        ("enter_from_private_form", DONE),
        ("finish", DONE),
    ]
    assert '"check": "worked"' in steps[2].result
    assert sites.count("six_box_code") == 1 and sites.outcome("six_box_code", "accepted") == 1
    assert_kept_private([code], model_server, log_tee, peers)


# --- payments -----------------------------------------------------------------


async def save_card(person: Person) -> str:
    reply = await person.vault.PutItem(
        claims.PutItemRequest(
            item=claims.VaultItem(
                kind=claims.ENTRY_KIND_CARD,
                label="Pattern card",
                fields={"number": CANARY_CARD, "expiry": "12/29", "holder_name": "Ada Lovelace"},
            )
        ),
        metadata=person.meta,
    )
    return reply.item.id


async def yes_then_security_code(stub, person: Person, task_id: str) -> None:
    """The person's part of a card payment: yes to it, then the security code."""
    asked = await wait_for(
        stub,
        person.meta,
        task_id,
        lambda t: waiting(pb.WAIT_KIND_PAYMENT)(t) or ended(t),
        timeout_s=60,
    )
    assert asked.state == pb.TASK_STATE_WAITING, asked.message
    await say_yes_to_payment(person, asked)
    security = await wait_for(
        stub, person.meta, task_id, lambda t: waiting(pb.WAIT_KIND_PRIVATE_FORM)(t) or ended(t)
    )
    assert security.state == pb.TASK_STATE_WAITING, security.message
    assert security.wait.form_kind == pb.FORM_KIND_SECURITY_CODE
    await submit_security_code(stub, person, security)


def card_secrets() -> list[str]:
    return [CANARY_CARD, f'"{SECURITY_CODE}"', f"={SECURITY_CODE}"]


async def test_a_card_goes_into_hosted_fields_in_a_cross_origin_frame_and_is_paid_once(
    tasks_with, model_server, demo_person, pattern_sites, peers, log_tee
):
    sites = pattern_sites
    card_id = await save_card(demo_person)
    model_server.otherwise = AgnosticModel().answer
    stub = await tasks_with(model_url=model_server.url)

    task = await begin(
        stub, demo_person, f"Buy {sites.url}/checkout with my saved card Pattern card"
    )
    await yes_then_security_code(stub, demo_person, task.id)
    done = await wait_for(stub, demo_person.meta, task.id, ended, timeout_s=60)

    steps = await steps_of(stub, demo_person.meta, task.id)
    assert done.state == pb.TASK_STATE_DONE, (done.message, tools_and_states(steps))
    assert tools_and_states(steps) == [
        ("navigate", DONE),
        ("request_payment", DONE),
        ("ask_private_form", DONE),
        ("pay", DONE),
        ("finish", DONE),
    ]
    pay = steps[3]
    placed = json.loads(pay.arguments)["fields"]
    assert all(ref.startswith("f1.") for ref in placed.values()), placed  # in the card frame
    assert '"paid": "paid"' in pay.result
    # The card host's own record: one card, paid.
    assert sites.count("hosted_card") == 1 and sites.outcome("hosted_card", "paid") == 1
    payment = await payment_of(demo_person, json.loads(pay.arguments)["payment_id"])
    assert (payment.state, payment.outcome) == (
        payments.PAYMENT_STATE_SUBMITTED,
        payments.PAYMENT_OUTCOME_PAID,
    )
    assert (payment.amount_minor, payment.currency, payment.card_item_id) == (2500, "EUR", card_id)
    assert_kept_private(card_secrets(), model_server, log_tee, peers)


async def test_a_payment_the_bank_confirms_in_a_popup_waits_then_ends_paid_once(
    tasks_with, model_server, demo_person, pattern_sites, peers, log_tee
):
    sites = pattern_sites
    await save_card(demo_person)
    model_server.otherwise = AgnosticModel().answer
    stub = await tasks_with(model_url=model_server.url)

    task = await begin(
        stub, demo_person, f"Buy {sites.url}/pay-3ds with my saved card Pattern card"
    )
    await yes_then_security_code(stub, demo_person, task.id)
    bank = await wait_for(
        stub,
        demo_person.meta,
        task.id,
        lambda t: waiting(pb.WAIT_KIND_BANK_CONFIRMATION)(t) or ended(t),
        timeout_s=60,
    )
    assert bank.state == pb.TASK_STATE_WAITING, bank.message
    assert "bank" in bank.wait.prompt
    # The card reached the shop once; the bank has been asked, not answered.
    assert sites.count("card_3ds") == 1 and sites.count("bank_confirm") == 0

    # The person confirms in their bank's app: the bank records it, as its
    # popup's Confirm would.
    (transaction,) = [t for t, s in sites.state.transactions.items() if s == "challenged"]
    async with aiohttp.ClientSession() as http:
        form = {"txn": transaction, "action": "confirm"}
        async with http.post(f"{sites.url}/3ds/challenge", data=form) as reply:
            assert reply.status == 200
    done = await wait_for(stub, demo_person.meta, task.id, ended, timeout_s=60)

    steps = await steps_of(stub, demo_person.meta, task.id)
    assert done.state == pb.TASK_STATE_DONE, (done.message, tools_and_states(steps))
    assert tools_and_states(steps) == [
        ("navigate", DONE),
        ("request_payment", DONE),
        ("ask_private_form", DONE),
        ("pay", DONE),
        ("finish", DONE),
    ]
    pay = steps[3]
    assert '"paid": "paid"' in pay.result
    # Nothing pressed twice: one card submission, one bank answer, confirmed.
    assert sites.count("card_3ds") == 1 and sites.count("bank_confirm") == 1
    assert sites.outcome("bank_confirm", "confirmed") == 1
    payment = await payment_of(demo_person, json.loads(pay.arguments)["payment_id"])
    assert (payment.state, payment.outcome) == (
        payments.PAYMENT_STATE_SUBMITTED,
        payments.PAYMENT_OUTCOME_PAID,
    )
    assert_kept_private(card_secrets(), model_server, log_tee, peers)
