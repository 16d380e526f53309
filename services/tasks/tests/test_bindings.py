"""G13 through the tasks service: a private form is for the page the task
last read (its origin and frame, set here, never from the model's words),
a value refused for where it would go becomes a step that was not run with
the reason, and is never entered elsewhere; a payment names its hosted
payment pages, and pay on a page of another site is not run before the card
entry starts. Two small sites on 127.0.0.2 and 127.0.0.3 count what they
received."""

import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest
from aiohttp import web

from nod.payments.v1 import payments_pb2 as payments
from nod.tasks.v1 import tasks_pb2 as pb
from nodtest.claims import CANARY_CARD
from nodtest.processes import free_port

from .model_server import tool_call
from .support import (
    begin,
    ended,
    payment_of,
    say_yes_to_payment,
    steps_of,
    tools_and_states,
    type_into_form,
    wait_for,
    waiting,
)

DONE, NOT_RUN = pb.STEP_STATE_DONE, pb.STEP_STATE_NOT_RUN

CODE_PAGE = """<!doctype html><html><head><title>Code</title></head><body>
<h1>Enter the code we sent you</h1>
<form id="verify" method="post" action="/code">
  <label for="code">Code</label>
  <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code">
  <button type="submit">Verify</button>
</form></body></html>"""

CHECKOUT_PAGE = """<!doctype html><html><head><title>Checkout</title></head><body>
<h1>Checkout</h1><p>Total 25.00 EUR</p>
<form id="card" method="post" action="{action}">
  <label for="number">Card number</label>
  <input id="number" name="number" autocomplete="cc-number">
  <label for="expiry">Expiry</label><input id="expiry" name="expiry" autocomplete="cc-exp">
  <button type="submit">Pay</button>
</form></body></html>"""

ANSWER = "<!doctype html><html><head><title>Thanks</title></head><body><h1>{}</h1></body></html>"


@dataclass
class Site:
    url: str = ""
    received: list[tuple[str, dict]] = field(default_factory=list)

    def count(self, path: str) -> int:
        return sum(1 for at, _ in self.received if at == path)


@contextlib.asynccontextmanager
async def serve(host: str) -> AsyncIterator[Site]:
    site = Site()

    async def code(request: web.Request) -> web.Response:
        return web.Response(text=CODE_PAGE, content_type="text/html")

    async def checkout(request: web.Request) -> web.Response:
        action = request.query.get("action", "/pay")
        return web.Response(text=CHECKOUT_PAGE.format(action=action), content_type="text/html")

    async def post(request: web.Request) -> web.Response:
        site.received.append((request.path, dict(await request.post())))
        words = "Payment accepted" if request.path == "/pay" else "Signed in"
        return web.Response(text=ANSWER.format(words), content_type="text/html")

    app = web.Application()
    app.add_routes(
        [
            web.get("/code", code),
            web.get("/checkout", checkout),
            web.post("/{name}", post),
        ]
    )
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, host, port).start()
    site.url = f"http://{host}:{port}"
    try:
        yield site
    finally:
        await runner.cleanup()


@dataclass
class Sites:
    chosen: Site
    other: Site


@pytest.fixture
async def sites() -> AsyncIterator[Sites]:
    async with serve("127.0.0.3") as chosen, serve("127.0.0.2") as other:
        yield Sites(chosen, other)


def navigate(url: str, **more):
    return tool_call("navigate", {"url": url, **more})


FINISH = tool_call("finish", {"message": "done"})


async def test_a_code_typed_for_one_site_is_not_entered_on_another(
    tasks_with, model_server, demo_person, sites
):
    form: dict[str, str] = {}

    async def enter_code(**more):
        arguments = {"form_id": form["id"], "fields": {"code": "#code"}, "submit": "#verify button"}
        return tool_call("enter_from_private_form", arguments | more)

    model_server.script = [
        navigate(f"{sites.chosen.url}/code"),
        tool_call("ask_private_form", {"kind": "one_time_code", "reason": "the site's code"}),
        navigate(f"{sites.other.url}/code"),
        enter_code,
        navigate(f"{sites.chosen.url}/code", new_action_reason="back to the code's page"),
        lambda: enter_code(new_action_reason="back on the page the code was asked for"),
        FINISH,
    ]
    stub = await tasks_with(model_url=model_server.url)
    person = demo_person
    task = await begin(stub, person, "Sign in with the code I give you")
    asked = await wait_for(stub, person.meta, task.id, waiting(pb.WAIT_KIND_PRIVATE_FORM))
    # The form is for the page the task read, and says so.
    assert (asked.wait.origin, asked.wait.frame_origin) == (sites.chosen.url, sites.chosen.url)
    form["id"] = asked.wait.id
    entry = await type_into_form(person, asked, {"code": "480193"})
    await stub.SubmitPrivateForm(
        pb.SubmitPrivateFormRequest(task_id=task.id, form_id=asked.wait.id, item_id=entry),
        metadata=person.meta,
    )
    done = await wait_for(stub, person.meta, task.id, ended, timeout_s=60)

    steps = await steps_of(stub, person.meta, task.id)
    assert done.state == pb.TASK_STATE_DONE, (done.message, tools_and_states(steps))
    assert tools_and_states(steps) == [
        ("navigate", DONE),
        ("ask_private_form", DONE),
        ("navigate", DONE),
        ("enter_from_private_form", NOT_RUN),
        ("navigate", DONE),
        ("enter_from_private_form", DONE),
        ("finish", DONE),
    ]
    refused = json.loads(steps[3].result)
    assert refused["outcome"] == "not_run"
    assert f"this page belongs to {sites.other.url}" in refused["why"]
    assert "480193" not in steps[3].result
    assert sites.other.received == []
    assert sites.chosen.received == [("/code", {"code": "480193"})]


async def test_a_form_is_for_a_page_the_task_read(tasks_with, model_server, demo_person):
    model_server.script = [
        tool_call("ask_private_form", {"kind": "one_time_code", "reason": "a code"}),
        FINISH,
    ]
    stub = await tasks_with(model_url=model_server.url)
    task = await begin(stub, demo_person, "Sign in with a code")
    done = await wait_for(stub, demo_person.meta, task.id, ended)

    steps = await steps_of(stub, demo_person.meta, task.id)
    assert tools_and_states(steps) == [("ask_private_form", NOT_RUN), ("finish", DONE)]
    assert "read the page the value is for first" in steps[0].result
    assert done.state == pb.TASK_STATE_DONE


def pay(payment: dict, *, reason: str = "") -> tuple:
    arguments = {
        "payment_id": payment["id"],
        "fields": {"number": "#number", "expiry": "#expiry"},
        "submit": "#card button",
    }
    if reason:
        arguments["new_action_reason"] = reason
    return tool_call("pay", arguments)


async def paying_task(stub, person, model_server, first_page: str, pay_page: str, hosted=()):
    """A task that asks for a payment to the chosen shop, then pays on
    `pay_page`; the person says yes. Returns the task, ended."""
    payment: dict[str, str] = {}
    request = {
        "merchant_origin": first_page.rsplit("/", 1)[0],
        "amount_minor": 2500,
        "currency": "EUR",
        "description": "one teapot",
        "card_id": person.card.id,
        "hosted_payment_origins": list(hosted),
    }
    model_server.script = [
        navigate(first_page),
        tool_call("request_payment", request),
        navigate(pay_page),
        lambda: _answer(pay(payment)),
        FINISH,
    ]
    task = await begin(stub, person, "Buy the teapot with my card")
    asked = await wait_for(
        stub, person.meta, task.id, lambda t: waiting(pb.WAIT_KIND_PAYMENT)(t) or ended(t)
    )
    assert asked.state == pb.TASK_STATE_WAITING, asked.message
    payment["id"] = asked.wait.id
    await say_yes_to_payment(person, asked)
    return await wait_for(stub, person.meta, task.id, ended, timeout_s=60), payment["id"]


async def _answer(answer):
    return answer


async def test_pay_on_another_site_is_not_run_and_the_payment_waits(
    tasks_with, model_server, demo_person, sites
):
    stub = await tasks_with(model_url=model_server.url)
    hosted = "https://pay.provider.example"
    done, payment_id = await paying_task(
        stub,
        demo_person,
        model_server,
        f"{sites.chosen.url}/checkout",
        f"{sites.other.url}/checkout",
        hosted=[hosted],
    )

    steps = await steps_of(stub, demo_person.meta, done.id)
    assert tools_and_states(steps)[-2:] == [("pay", NOT_RUN), ("finish", DONE)]
    why = json.loads(steps[-2].result)["why"]
    assert f"this page belongs to {sites.other.url}" in why and sites.chosen.url in why
    payment = await payment_of(demo_person, payment_id)
    assert list(payment.hosted_payment_origins) == [hosted]
    # The card entry never started: nothing was bound, claimed or typed.
    assert payment.state in (payments.PAYMENT_STATE_CONFIRMED, payments.PAYMENT_STATE_CANCELLED)
    assert not payment.card_operation_id
    assert sites.other.received == [] and sites.chosen.received == []


async def test_a_checkout_posting_the_card_elsewhere_is_refused_before_typing(
    tasks_with, model_server, demo_person, sites
):
    stub = await tasks_with(model_url=model_server.url)
    elsewhere = f"{sites.other.url}/pay"
    done, payment_id = await paying_task(
        stub,
        demo_person,
        model_server,
        f"{sites.chosen.url}/checkout",
        f"{sites.chosen.url}/checkout?action={elsewhere}",
    )

    steps = await steps_of(stub, demo_person.meta, done.id)
    assert tools_and_states(steps)[-2:] == [("pay", NOT_RUN), ("finish", DONE)]
    why = json.loads(steps[-2].result)["why"]
    assert f"sends what is typed into it to {sites.other.url}" in why
    assert sites.other.received == [] and sites.chosen.received == []
    # The entry had started: the payment can't go back to waiting, and says nothing was typed.
    payment = await payment_of(demo_person, payment_id)
    assert payment.state == payments.PAYMENT_STATE_UNCERTAIN
    assert "nothing was typed" in payment.reason


async def test_the_card_goes_in_on_the_shop_said_yes_to(
    tasks_with, model_server, demo_person, sites
):
    stub = await tasks_with(model_url=model_server.url)
    done, payment_id = await paying_task(
        stub,
        demo_person,
        model_server,
        f"{sites.chosen.url}/checkout",
        f"{sites.chosen.url}/checkout",
    )

    steps = await steps_of(stub, demo_person.meta, done.id)
    assert tools_and_states(steps)[-2:] == [("pay", DONE), ("finish", DONE)]
    assert [form["number"] for _, form in sites.chosen.received] == [CANARY_CARD]
    assert (await payment_of(demo_person, payment_id)).state == payments.PAYMENT_STATE_SUBMITTED
