"""The task list: start a task, see every task with its state, Stop all."""

import uuid

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from nod.tasks.v1 import tasks_pb2 as tasks
from nod_gateway.web import fields, words
from nod_gateway.web.render import page
from nod_gateway.web.sessions import PostedForm, SignedIn

router = APIRouter()
PAGE_SIZE = 50
# What the scripted planner can do without a model provider (the tasks
# service's nod_tasks.adapters.models.scripted.DEMO_TASKS; a test keeps the
# two the same).
DEMO_TASKS = (
    "Sign in to the demo shop",
    "Buy the desk lamp at the demo shop",
    "Send a note to the demo app: hello from nod",
)


@router.get("/")
async def home() -> Response:
    return RedirectResponse("/tasks", status_code=303)


@router.get("/tasks")
async def task_list(
    request: Request,
    asked: SignedIn,
    state: str = "",
    page_token: str = "",
    stopped: int = -1,
):
    wanted = words.TASK_FILTERS.get(state, tasks.TASK_STATE_UNSPECIFIED)
    reply = await asked.nod.tasks.ListTasks(
        tasks.ListTasksRequest(state=wanted, page_size=PAGE_SIZE, page_token=page_token[:500])
    )
    return page(
        request,
        "tasks.html",
        tasks=reply.tasks,
        next_page_token=reply.next_page_token,
        state=state if wanted else "",
        filters=words.TASK_FILTERS,
        demo_tasks=DEMO_TASKS,
        # Each form carries its own request id: a form sent twice (a double
        # click, a resend after a lost answer) starts one task.
        request_id=uuid.uuid4().hex,
        stopped=stopped,
    )


@router.post("/tasks")
async def start_task(asked: PostedForm) -> Response:
    text = fields.text(asked.form, "text", max_length=4000)
    request_id = fields.text(asked.form, "request_id", max_length=64)
    reply = await asked.nod.tasks.StartTask(
        tasks.StartTaskRequest(text=text, request_id=request_id)
    )
    return RedirectResponse(f"/tasks/{reply.task.id}", status_code=303)


@router.post("/stop")
async def stop_everything(asked: PostedForm) -> Response:
    """Every running, queued and waiting task of the person (G11)."""
    reply = await asked.nod.tasks.Stop(tasks.StopRequest())
    return RedirectResponse(f"/tasks?stopped={len(reply.tasks)}", status_code=303)
