"""The three demo tasks end to end, driven by the scripted planner (no
network) and by a local model server speaking the OpenAI protocol: the demo
shop and demo app receive exactly one sign-in, one payment, one note."""

import pytest

from nod.tasks.v1 import tasks_pb2 as pb
from nod_tasks.adapters.models.scripted import DEMO_TASKS
from nodtest.codes import wrong_code
from nodtest.demo import SHOP_TOTP_SEED, shop_count

from .support import (
    begin,
    ended,
    say_yes_to_action,
    say_yes_to_payment,
    steps_of,
    submit_code,
    submit_security_code,
    wait_for,
    waiting,
)

FORM = waiting(pb.WAIT_KIND_PRIVATE_FORM)


@pytest.fixture(params=["scripted", "model server"])
async def tasks_stub(request, tasks_with, model_server, demo_person):
    if request.param == "scripted":
        return await tasks_with()
    model_server.plan_as_scripted(demo_person.context(""))
    return await tasks_with(model_url=model_server.url)


async def sign_in(stub, person, task) -> pb.Task:
    task = await wait_for(stub, person.meta, task.id, FORM)
    assert task.wait.form_kind == pb.FORM_KIND_ONE_TIME_CODE
    await submit_code(stub, person, task)
    return task


async def test_sign_in_with_the_saved_login_and_a_code(tasks_stub, demo_person, shop_site):
    task = await begin(tasks_stub, demo_person, DEMO_TASKS["sign_in"])
    await sign_in(tasks_stub, demo_person, task)
    done = await wait_for(tasks_stub, demo_person.meta, task.id, ended)
    assert done.state == pb.TASK_STATE_DONE, done.message
    assert (done.outcome, done.outcome_reason) == (pb.TASK_OUTCOME_DONE, "")
    assert shop_count(shop_site, "login") == 1 and shop_count(shop_site, "otp") == 1
    tools = [s.tool for s in await steps_of(tasks_stub, demo_person.meta, task.id)]
    assert tools == [
        "navigate",
        "enter_saved_login",
        "ask_private_form",
        "enter_from_private_form",
        "finish",
    ]


async def test_a_code_the_shop_refused_is_asked_for_again_then_goes_in(
    tasks_stub, demo_person, shop_site
):
    task = await begin(tasks_stub, demo_person, DEMO_TASKS["sign_in"])
    first = await wait_for(tasks_stub, demo_person.meta, task.id, FORM)
    await submit_code(tasks_stub, demo_person, first, wrong_code(SHOP_TOTP_SEED))
    # A new form (a new request), not the old code typed again.
    again = await wait_for(
        tasks_stub, demo_person.meta, task.id, lambda t: FORM(t) and t.wait.id != first.wait.id
    )
    assert "didn't accept" in again.wait.prompt
    await submit_code(tasks_stub, demo_person, again)

    done = await wait_for(tasks_stub, demo_person.meta, task.id, ended)

    assert (done.state, done.outcome) == (pb.TASK_STATE_DONE, pb.TASK_OUTCOME_DONE)
    assert shop_count(shop_site, "otp") == 2
    steps = await steps_of(tasks_stub, demo_person.meta, task.id)
    checks = [s.check for s in steps if s.tool == "enter_from_private_form"]
    assert checks == [pb.ENTRY_CHECK_DID_NOT_WORK, pb.ENTRY_CHECK_WORKED]
    assert len({s.claim_id for s in steps if s.tool == "enter_from_private_form"}) == 2


async def test_after_three_refused_codes_nod_asks_no_more_and_says_so(
    tasks_stub, demo_person, shop_site
):
    task = await begin(tasks_stub, demo_person, DEMO_TASKS["sign_in"])
    seen: set[str] = set()
    for _ in range(3):
        form = await wait_for(
            tasks_stub, demo_person.meta, task.id, lambda t: FORM(t) and t.wait.id not in seen
        )
        seen.add(form.wait.id)
        await submit_code(tasks_stub, demo_person, form, wrong_code(SHOP_TOTP_SEED))

    done = await wait_for(tasks_stub, demo_person.meta, task.id, ended)

    assert done.state == pb.TASK_STATE_DONE
    assert (done.outcome, done.outcome_reason) == (pb.TASK_OUTCOME_NOT_DONE, "CODE_NOT_ACCEPTED")
    steps = await steps_of(tasks_stub, demo_person.meta, task.id)
    entered = steps[done.outcome_step - 1]
    assert (entered.tool, entered.check, entered.form_kind) == (
        "enter_from_private_form",
        pb.ENTRY_CHECK_DID_NOT_WORK,
        pb.FORM_KIND_ONE_TIME_CODE,
    )
    assert shop_count(shop_site, "otp") == 3


async def test_buy_with_a_payment_yes(tasks_stub, demo_person, shop_site):
    task = await begin(tasks_stub, demo_person, DEMO_TASKS["buy"])
    await sign_in(tasks_stub, demo_person, task)
    asked = await wait_for(tasks_stub, demo_person.meta, task.id, waiting(pb.WAIT_KIND_PAYMENT))
    assert "25.00 EUR" in asked.wait.prompt
    await say_yes_to_payment(demo_person, asked)
    code = await wait_for(tasks_stub, demo_person.meta, task.id, FORM)
    assert code.wait.form_kind == pb.FORM_KIND_SECURITY_CODE
    await submit_security_code(tasks_stub, demo_person, code)
    done = await wait_for(tasks_stub, demo_person.meta, task.id, ended)
    assert done.state == pb.TASK_STATE_DONE, done.message
    assert done.outcome == pb.TASK_OUTCOME_DONE and "paid" in done.message
    (pay,) = [s for s in await steps_of(tasks_stub, demo_person.meta, task.id) if s.tool == "pay"]
    assert pay.paid == pb.PAID_OUTCOME_PAID and pay.page_origin == shop_site.url
    assert shop_count(shop_site, "login") == 1 and shop_count(shop_site, "checkout") == 1


async def test_send_a_note_with_a_yes(tasks_stub, demo_person, webhook_app):
    task = await begin(tasks_stub, demo_person, DEMO_TASKS["note"])
    asked = await wait_for(tasks_stub, demo_person.meta, task.id, waiting(pb.WAIT_KIND_DECISION))
    await say_yes_to_action(demo_person, asked)
    done = await wait_for(tasks_stub, demo_person.meta, task.id, ended)
    assert done.state == pb.TASK_STATE_DONE, done.message
    assert done.outcome == pb.TASK_OUTCOME_DONE
    assert [r["body"] for r in webhook_app.received] == [{"text": "hello from nod"}]


async def test_stopped_at_the_code_form_then_continued(tasks_stub, demo_person, shop_site):
    """Stopped while the code form was open, then Continue: the form's step
    ended NOT_RUN by the Stop (it waited for the person, no run held it),
    so the planner says so and ends, and the task didn't finish because of
    the Stop; nothing is entered again."""
    task = await begin(tasks_stub, demo_person, DEMO_TASKS["sign_in"])
    await wait_for(tasks_stub, demo_person.meta, task.id, FORM)
    await tasks_stub.Stop(pb.StopRequest(task_id=task.id), metadata=demo_person.meta)
    await wait_for(tasks_stub, demo_person.meta, task.id, ended)
    await tasks_stub.Continue(
        pb.ContinueRequest(task_id=task.id, text="go on"), metadata=demo_person.meta
    )
    done = await wait_for(tasks_stub, demo_person.meta, task.id, lambda t: t.run == 2 and ended(t))
    assert done.state == pb.TASK_STATE_DONE, done.message
    assert (done.outcome, done.outcome_reason) == (pb.TASK_OUTCOME_NOT_DONE, "STOPPED")
    asked = (await steps_of(tasks_stub, demo_person.meta, task.id))[done.outcome_step - 1]
    assert (asked.tool, asked.reason_code) == ("ask_private_form", "STOPPED")
    assert asked.form_kind == pb.FORM_KIND_ONE_TIME_CODE
    assert shop_count(shop_site, "login") == 1 and shop_count(shop_site, "otp") == 0
    tools = [s.tool for s in await steps_of(tasks_stub, demo_person.meta, task.id)]
    assert tools.count("enter_saved_login") == 1 and "enter_from_private_form" not in tools
