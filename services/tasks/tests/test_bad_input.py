"""Bad input gets INVALID_ARGUMENT naming the field or FAILED_PRECONDITION
saying why, and changes nothing; another person's task answers NOT_FOUND."""

import uuid

import grpc
import pytest

from nod.tasks.v1 import tasks_pb2 as pb
from nodkit.client import call_metadata
from nodtest.rpc import expect_error

from .model_server import tool_call
from .support import wait_for

INVALID = grpc.StatusCode.INVALID_ARGUMENT
REFUSED = grpc.StatusCode.FAILED_PRECONDITION


async def task_rows(db, person) -> tuple:
    row = await (
        await db.execute(
            "SELECT count(*), coalesce(sum(last_event), 0), coalesce(sum(steps), 0)"
            " FROM tasks.tasks WHERE owner = %s",
            (person,),
        )
    ).fetchone()
    return tuple(row)


@pytest.mark.parametrize(
    ("field", "text"),
    [
        ("text", ""),
        ("text", "   "),
        ("text", "x" * 100_000),
        ("text", "stop\x00here"),
        # It goes to the model: a card belongs in the vault (G8).
        ("text", "Pay with my card 4111 1111 1111 1111"),
    ],
)
async def test_bad_task_text(tasks_with, as_person, db, person, field, text):
    stub = await tasks_with()
    before = await task_rows(db, person)
    await expect_error(
        stub.StartTask(pb.StartTaskRequest(text=text), metadata=as_person), INVALID, field=field
    )
    assert await task_rows(db, person) == before


async def test_bad_ids_and_answers_to_nothing(tasks_with, model_server, as_person, db, person):
    model_server.script = [tool_call("ask_person", {"question": "Which colour?"})]
    stub = await tasks_with(model_url=model_server.url)
    unknown = str(uuid.uuid4())
    await expect_error(
        stub.GetTask(pb.GetTaskRequest(task_id="not-an-id"), metadata=as_person),
        INVALID,
        field="task_id",
    )
    await expect_error(
        stub.GetTask(pb.GetTaskRequest(task_id=unknown), metadata=as_person),
        grpc.StatusCode.NOT_FOUND,
    )
    task = (await stub.StartTask(pb.StartTaskRequest(text="Ask me"), metadata=as_person)).task
    asked = await wait_for(stub, as_person, task.id, lambda t: t.state == pb.TASK_STATE_WAITING)
    before = await task_rows(db, person)

    calls = [
        # A form for a task that waits for an answer, not a form.
        (
            stub.SubmitPrivateForm(
                pb.SubmitPrivateFormRequest(task_id=task.id, form_id=unknown, item_id=unknown),
                metadata=as_person,
            ),
            REFUSED,
            None,
        ),
        (
            stub.AnswerQuestion(
                pb.AnswerQuestionRequest(task_id=task.id, question_id=unknown, text="blue"),
                metadata=as_person,
            ),
            REFUSED,
            None,
        ),
        (
            stub.AnswerQuestion(
                pb.AnswerQuestionRequest(task_id=task.id, question_id=asked.wait.id, text=""),
                metadata=as_person,
            ),
            INVALID,
            "text",
        ),
        (
            stub.ResolveUncertain(
                pb.ResolveUncertainRequest(task_id=task.id, step=1, resolution=0),
                metadata=as_person,
            ),
            INVALID,
            "resolution",
        ),
        (
            stub.Continue(pb.ContinueRequest(task_id=task.id, text="go on"), metadata=as_person),
            REFUSED,
            None,
        ),
        (
            stub.ListTasks(pb.ListTasksRequest(page_size=-1), metadata=as_person),
            INVALID,
            "page_size",
        ),
        (
            stub.ListTasks(pb.ListTasksRequest(page_token="garbage"), metadata=as_person),
            INVALID,
            "page_token",
        ),
    ]
    for call, code, field in calls:
        await expect_error(call, code, field=field)
    assert await task_rows(db, person) == before
    answered = await stub.AnswerQuestion(
        pb.AnswerQuestionRequest(task_id=task.id, question_id=asked.wait.id, text="blue"),
        metadata=as_person,
    )
    assert answered.task.state == pb.TASK_STATE_QUEUED


async def test_another_persons_task_is_not_found(
    tasks_with, model_server, as_person, service_token
):
    model_server.script = [tool_call("ask_person", {"question": "Which colour?"})]
    stub = await tasks_with(model_url=model_server.url)
    task = (await stub.StartTask(pb.StartTaskRequest(text="Mine"), metadata=as_person)).task
    await wait_for(stub, as_person, task.id, lambda t: t.state == pb.TASK_STATE_WAITING)
    other = call_metadata(service_token, f"someone-else-{uuid.uuid4().hex[:6]}")

    for call in (
        stub.GetTask(pb.GetTaskRequest(task_id=task.id), metadata=other),
        stub.Continue(pb.ContinueRequest(task_id=task.id, text="go"), metadata=other),
        stub.ListTaskEvents(pb.ListTaskEventsRequest(task_id=task.id), metadata=other),
        stub.Stop(pb.StopRequest(task_id=task.id), metadata=other),
    ):
        await expect_error(call, grpc.StatusCode.NOT_FOUND, reason="TASK_NOT_FOUND")
    listed = await stub.ListTasks(pb.ListTasksRequest(), metadata=other)
    assert list(listed.tasks) == []
    mine = (await stub.GetTask(pb.GetTaskRequest(task_id=task.id), metadata=as_person)).task
    assert mine.state == pb.TASK_STATE_WAITING


async def test_a_resent_start_finds_the_first_task(tasks_with, model_server, as_person, db, person):
    model_server.script = [tool_call("ask_person", {"question": "?"})]
    stub = await tasks_with(model_url=model_server.url)
    request = pb.StartTaskRequest(text="Once", request_id="start-1")
    first = (await stub.StartTask(request, metadata=as_person)).task
    again = (await stub.StartTask(request, metadata=as_person)).task
    assert again.id == first.id
    await expect_error(
        stub.StartTask(pb.StartTaskRequest(text="Other", request_id="start-1"), metadata=as_person),
        grpc.StatusCode.ALREADY_EXISTS,
        reason="REQUEST_ID_REUSED",
    )
    assert (await task_rows(db, person))[0] == 1
