"""The promise where a task meets a restart, a Stop, an end or a Continue:
a saved login cut off mid-entry is never typed again, a card entry cut off
never leaves its payment RUNNING, a yes the task never used is cancelled
when it ends, and a continued task browses in a new session when its old
one is gone. Each counts what the demo shop received."""

import asyncio

from nod.claims.v1 import claims_pb2 as claims
from nod.payments.v1 import payments_pb2 as payments
from nod.tasks.v1 import tasks_pb2 as pb
from nod_tasks.adapters.models.scripted import DEMO_TASKS
from nodtest.demo import shop_count, shop_wait_for_count

from .model_server import tool_call
from .support import (
    Person,
    begin,
    ended,
    say_yes_to_payment,
    steps_of,
    submit_code,
    submit_security_code,
    wait_for,
    waiting,
)

FORM = waiting(pb.WAIT_KIND_PRIVATE_FORM)
INSISTS = "the person said continue: sign in once more"


def saved_login(person: Person, **more) -> dict:
    fields = {"username": "#username", "password": "#password"}
    return {"login_id": person.login.id, "fields": fields, "submit": "#login button", **more}


async def continue_(stub, person: Person, task_id: str) -> pb.Task:
    request = pb.ContinueRequest(task_id=task_id, text="I checked; go on")
    await stub.Continue(request, metadata=person.meta)
    return await wait_for(stub, person.meta, task_id, lambda t: t.run == 2 and ended(t))


def tools_and_states(steps: list[pb.Step]) -> list[tuple[str, int]]:
    return [(s.tool, s.state) for s in steps]


async def test_a_saved_login_cut_off_by_a_restart_is_not_typed_again_after_continue(
    tasks_process, model_server, demo_person, shop_site
):
    model_server.script = [
        tool_call("navigate", {"url": f"{shop_site.url}/login"}),
        tool_call("enter_saved_login", saved_login(demo_person)),
    ]
    shop_site.state.set_mode("login", "hold")
    process, stub, address = await tasks_process("tasks-g6-restart")
    task = await begin(stub, demo_person, "Sign in to the shop")
    await shop_wait_for_count(shop_site, "login", 1)

    process.kill()
    shop_site.state.release()
    _, stub, _ = await tasks_process("tasks-g6-restart", address)
    interrupted = await wait_for(stub, demo_person.meta, task.id, ended)
    assert interrupted.state == pb.TASK_STATE_INTERRUPTED

    # A model that insists: the same login again, with a reason.
    model_server.script = [
        tool_call("enter_saved_login", saved_login(demo_person, new_action_reason=INSISTS)),
        tool_call("finish", {"message": "stopped trying"}),
    ]
    done = await continue_(stub, demo_person, task.id)

    assert done.state == pb.TASK_STATE_DONE
    steps = await steps_of(stub, demo_person.meta, task.id)
    assert tools_and_states(steps) == [
        ("navigate", pb.STEP_STATE_DONE),
        ("enter_saved_login", pb.STEP_STATE_UNCERTAIN),
        ("enter_saved_login", pb.STEP_STATE_NOT_RUN),
        ("finish", pb.STEP_STATE_DONE),
    ]
    assert "not entered again" in steps[2].reason
    assert shop_count(shop_site, "login") == 1


async def test_a_saved_login_cut_off_by_stop_is_not_typed_again_and_the_task_browses_again(
    tasks_with, model_server, demo_person, shop_site
):
    model_server.script = [
        tool_call("navigate", {"url": f"{shop_site.url}/login"}),
        tool_call("enter_saved_login", saved_login(demo_person)),
    ]
    shop_site.state.set_mode("login", "hold")
    stub = await tasks_with(model_url=model_server.url)
    task = await begin(stub, demo_person, "Sign in to the shop")
    await shop_wait_for_count(shop_site, "login", 1)
    await stub.Stop(pb.StopRequest(task_id=task.id), metadata=demo_person.meta)
    shop_site.state.release()

    # Stop closed the task's browser session: the next navigation opens a new one.
    again = f"{shop_site.url}/login?again=1"
    model_server.script = [
        tool_call("enter_saved_login", saved_login(demo_person, new_action_reason=INSISTS)),
        tool_call("navigate", {"url": again}),
        tool_call("finish", {"message": "on the sign-in page"}),
    ]
    done = await continue_(stub, demo_person, task.id)

    steps = await steps_of(stub, demo_person.meta, task.id)
    assert tools_and_states(steps)[1:] == [
        ("enter_saved_login", pb.STEP_STATE_UNCERTAIN),
        ("enter_saved_login", pb.STEP_STATE_NOT_RUN),
        ("navigate", pb.STEP_STATE_DONE),
        ("finish", pb.STEP_STATE_DONE),
    ]
    assert again in steps[3].result and done.state == pb.TASK_STATE_DONE
    assert shop_count(shop_site, "login") == 1


async def pay_with_the_checkout_held(stub, person: Person, shop_site) -> tuple[str, str]:
    """The demo purchase up to its card entry, whose checkout the shop
    holds: (task id, payment id)."""
    task = await begin(stub, person, DEMO_TASKS["buy"])
    await submit_code(stub, person, await wait_for(stub, person.meta, task.id, FORM))
    asked = await wait_for(stub, person.meta, task.id, waiting(pb.WAIT_KIND_PAYMENT))
    await say_yes_to_payment(person, asked)
    code = await wait_for(stub, person.meta, task.id, FORM)
    shop_site.state.set_mode("checkout", "hold")
    await submit_security_code(stub, person, code)
    await shop_wait_for_count(shop_site, "checkout", 1)
    return task.id, asked.wait.id


async def payment_becomes(person: Person, payment_id: str, state: int) -> payments.Payment:
    deadline = asyncio.get_running_loop().time() + 15
    while True:
        request = payments.GetPaymentRequest(payment_id=payment_id)
        payment = (await person.payments.GetPayment(request, metadata=person.meta)).payment
        if payment.state == state:
            return payment
        assert asyncio.get_running_loop().time() < deadline, f"the payment stayed {payment}"
        await asyncio.sleep(0.1)


async def card_claims(person: Person, task_id: str) -> list[claims.Claim]:
    request = claims.ListClaimsRequest(task_id=task_id)
    listed = await person.claims.ListClaims(request, metadata=person.meta)
    return [c for c in listed.claims if c.kind == claims.ENTRY_KIND_CARD]


async def test_a_card_entry_cut_off_by_stop_ends_its_payment_uncertain(
    tasks_with, model_server, demo_person, shop_site
):
    model_server.plan_as_scripted(demo_person.context(""))
    stub = await tasks_with(model_url=model_server.url)
    task_id, payment_id = await pay_with_the_checkout_held(stub, demo_person, shop_site)

    await stub.Stop(pb.StopRequest(task_id=task_id), metadata=demo_person.meta)

    payment = await payment_becomes(demo_person, payment_id, payments.PAYMENT_STATE_UNCERTAIN)
    (claim,) = await card_claims(demo_person, task_id)
    assert claim.state == claims.CLAIM_STATE_UNCERTAIN
    assert payment.outcome == payments.PAYMENT_OUTCOME_UNSPECIFIED
    shop_site.state.release()
    await asyncio.sleep(0.5)
    assert shop_count(shop_site, "checkout") == 1


async def test_a_card_entry_cut_off_by_a_restart_ends_its_payment_uncertain(
    tasks_process, model_server, demo_person, shop_site
):
    model_server.plan_as_scripted(demo_person.context(""))
    process, stub, address = await tasks_process("tasks-pay-restart")
    task_id, payment_id = await pay_with_the_checkout_held(stub, demo_person, shop_site)

    process.kill()
    _, stub, _ = await tasks_process("tasks-pay-restart", address)

    await payment_becomes(demo_person, payment_id, payments.PAYMENT_STATE_UNCERTAIN)
    interrupted = await wait_for(stub, demo_person.meta, task_id, ended)
    assert interrupted.state == pb.TASK_STATE_INTERRUPTED
    pay = (await steps_of(stub, demo_person.meta, task_id))[-1]
    assert (pay.tool, pay.state) == ("pay", pb.STEP_STATE_UNCERTAIN)
    shop_site.state.release()
    assert shop_count(shop_site, "checkout") == 1


async def test_a_yes_the_task_never_used_is_cancelled_when_it_ends(
    tasks_with, model_server, demo_person, shop_site
):
    model_server.script = [
        tool_call(
            "request_payment",
            {
                "merchant_origin": shop_site.url,
                "amount_minor": 2500,
                "currency": "EUR",
                "description": "Desk lamp",
                "card_id": demo_person.card.id,
            },
        ),
        tool_call("finish", {"message": "changed my mind"}),
    ]
    stub = await tasks_with(model_url=model_server.url)
    task = await begin(stub, demo_person, "Buy the lamp")
    asked = await wait_for(stub, demo_person.meta, task.id, waiting(pb.WAIT_KIND_PAYMENT))
    await say_yes_to_payment(demo_person, asked)

    done = await wait_for(stub, demo_person.meta, task.id, ended)
    assert done.state == pb.TASK_STATE_DONE
    cancelled = await payment_becomes(demo_person, asked.wait.id, payments.PAYMENT_STATE_CANCELLED)
    assert cancelled.outcome == payments.PAYMENT_OUTCOME_UNSPECIFIED
    assert shop_count(shop_site, "checkout") == 0
