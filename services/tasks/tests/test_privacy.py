"""No private value reaches the model, a task's history or a log: the saved
password, the typed one-time code and the card's security code stay between
the vault, the browser runner and the site."""

from google.protobuf import json_format

from nod.tasks.v1 import tasks_pb2 as pb
from nod_tasks.adapters.models.scripted import DEMO_TASKS
from nodtest.claims import CANARY_CARD, CANARY_PASSWORD

from .support import (
    SECURITY_CODE,
    begin,
    ended,
    events_of,
    one_time_code,
    say_yes_to_payment,
    submit_security_code,
    type_into_form,
    wait_for,
    waiting,
)


async def test_the_canaries_reach_no_model_request_no_event_no_log(
    tasks_with, model_server, demo_person, peers, log_tee
):
    model_server.plan_as_scripted(demo_person.context(""))
    stub = await tasks_with(model_url=model_server.url)
    meta = demo_person.meta
    task = await begin(stub, demo_person, DEMO_TASKS["buy"])
    form = await wait_for(stub, meta, task.id, waiting(pb.WAIT_KIND_PRIVATE_FORM))
    code = one_time_code()
    entry = await type_into_form(demo_person, form, {"code": code})
    await stub.SubmitPrivateForm(
        pb.SubmitPrivateFormRequest(task_id=task.id, form_id=form.wait.id, item_id=entry),
        metadata=meta,
    )
    asked = await wait_for(stub, meta, task.id, waiting(pb.WAIT_KIND_PAYMENT))
    await say_yes_to_payment(demo_person, asked)
    security = await wait_for(stub, meta, task.id, waiting(pb.WAIT_KIND_PRIVATE_FORM))
    await submit_security_code(stub, demo_person, security)
    done = await wait_for(stub, meta, task.id, ended)
    assert done.state == pb.TASK_STATE_DONE, done.message

    history = [json_format.MessageToJson(e) for e in await events_of(stub, meta, task.id)]
    seen = {
        "what the model was sent": model_server.everything_sent(),
        "the task's history": "\n".join(history),
        "the tasks service's log": log_tee.text(),
        **{
            f"the {p.name} log": p.log_text() for p in (peers.claims, peers.browser, peers.payments)
        },
    }
    assert (
        len(model_server.requests) >= 8 and "enter_from_private_form" in seen["the task's history"]
    )
    # A code is six digits, which a timestamp may hold by chance: in logs it is
    # looked for as a value; what the model sees has no timestamps.
    shaped = (f'"{code}"', f"={code}", f'"{SECURITY_CODE}"', f"={SECURITY_CODE}")
    for where, text in seen.items():
        for canary in (CANARY_PASSWORD, CANARY_CARD, *shaped):
            assert canary not in text, f"a private value in {where}"
    assert code not in seen["what the model was sent"]
