"""What the model is told of the person's saved items: read at a run's
start and again once the last read is older than context_max_age_s, so a
login saved while a task runs reaches the model within that time, and quick
steps don't each read the vault and the apps again."""

import asyncio

from nod.claims.v1 import claims_pb2 as claims
from nod.tasks.v1 import tasks_pb2 as pb

from .model_server import Answer, tool_call
from .support import begin, ended, wait_for

MAX_AGE_S = 5.0
LABEL = "Saved while the task ran"


def system_prompt(body: dict) -> str:
    return body["messages"][0]["content"]


async def test_a_login_saved_mid_run_reaches_the_model_once_the_read_is_old(
    tasks_with, model_server, demo_person
):
    async def save_a_login() -> Answer:
        item = claims.VaultItem(
            kind=claims.ENTRY_KIND_SAVED_LOGIN,
            label=LABEL,
            origin="https://new.example",
            fields={"username": "ada", "password": "not-the-canary"},
        )
        await demo_person.vault.PutItem(claims.PutItemRequest(item=item), metadata=demo_person.meta)
        return tool_call("read_page", {})

    async def after_the_max_age() -> Answer:
        await asyncio.sleep(MAX_AGE_S + 0.5)
        return tool_call("read_page", {})

    model_server.script = [save_a_login, after_the_max_age, tool_call("finish", {"message": "ok"})]
    stub = await tasks_with(
        model_url=model_server.url, context_max_age_s=MAX_AGE_S, model_timeout_s=30.0
    )
    task = await begin(stub, demo_person, "Look around")
    done = await wait_for(stub, demo_person.meta, task.id, ended, timeout_s=60)

    assert done.state == pb.TASK_STATE_DONE
    prompts = [system_prompt(body) for body in model_server.requests]
    assert [len(body["messages"]) for body in model_server.requests] == [2, 4, 6]  # no retry
    # Read at the run's start, before the login was saved; kept for the
    # quick step that followed; read again for the step that came later.
    assert LABEL not in prompts[0] and LABEL not in prompts[1]
    assert LABEL in prompts[2]
