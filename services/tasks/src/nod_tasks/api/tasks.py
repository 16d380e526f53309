"""TasksService: proto <-> the tasks use cases."""

from nod.tasks.v1 import tasks_pb2 as pb
from nod.tasks.v1 import tasks_pb2_grpc
from nod_tasks.api.convert import (
    RESOLUTIONS,
    TASK_STATES,
    event_to_pb,
    look_to_pb,
    step_to_pb,
    task_to_pb,
)
from nod_tasks.app.looks import Looks
from nod_tasks.app.replies import Replies
from nod_tasks.app.stop import Stopper
from nod_tasks.app.tasks import Tasks
from nodkit import listing, validation
from nodkit.errors import InvalidArgument
from nodkit.identity import current_user


class TasksServicer(tasks_pb2_grpc.TasksServiceServicer):
    def __init__(self, tasks: Tasks, replies: Replies, stopper: Stopper, looks: Looks) -> None:
        self._tasks = tasks
        self._replies = replies
        self._stopper = stopper
        self._looks = looks

    async def StartTask(self, request, context) -> pb.StartTaskResponse:
        task = await self._tasks.start(current_user(), request.text, request.request_id)
        return pb.StartTaskResponse(task=task_to_pb(task))

    async def GetTask(self, request, context) -> pb.GetTaskResponse:
        task = await self._tasks.get(current_user(), request.task_id)
        return pb.GetTaskResponse(task=task_to_pb(task))

    async def ListTasks(self, request, context) -> pb.ListTasksResponse:
        page = await self._tasks.list(
            current_user(),
            TASK_STATES.optional("state", request.state),
            listing.page_request(request.page_size, request.page_token),
        )
        return pb.ListTasksResponse(
            tasks=[task_to_pb(t) for t in page.items], next_page_token=page.next_token
        )

    async def WatchTask(self, request, context):
        after = _event_number("after_event", request.after_event)
        async for event, task in self._tasks.watch(current_user(), request.task_id, after):
            yield pb.WatchTaskResponse(event=event_to_pb(event), task=task_to_pb(task))

    async def ListTaskEvents(self, request, context) -> pb.ListTaskEventsResponse:
        if not 0 <= request.page_size <= 500:
            raise InvalidArgument("page_size", "must be between 0 and 500")
        history = await self._tasks.history(
            current_user(),
            request.task_id,
            _event_number("after_event", request.after_event),
            request.page_size,
        )
        return pb.ListTaskEventsResponse(
            events=[event_to_pb(e) for e in history.events],
            steps=[step_to_pb(s) for s in history.steps],
            more=history.more,
        )

    async def Stop(self, request, context) -> pb.StopResponse:
        task_id = validation.uuid_id("task_id", request.task_id) if request.task_id else None
        stopped = await self._tasks.judged(await self._stopper.stop(current_user(), task_id))
        return pb.StopResponse(tasks=[task_to_pb(t) for t in stopped])

    async def Continue(self, request, context) -> pb.ContinueResponse:
        task = await self._tasks.continue_(
            current_user(), request.task_id, request.text, request.request_id
        )
        return pb.ContinueResponse(task=task_to_pb(task))

    async def SubmitPrivateForm(self, request, context) -> pb.SubmitPrivateFormResponse:
        task = await self._tasks.get(current_user(), request.task_id)
        task = await self._replies.submit_form(task, request.form_id, request.item_id)
        return pb.SubmitPrivateFormResponse(task=task_to_pb(task))

    async def AnswerQuestion(self, request, context) -> pb.AnswerQuestionResponse:
        task = await self._tasks.get(current_user(), request.task_id)
        task = await self._replies.answer(task, request.question_id, request.text)
        return pb.AnswerQuestionResponse(task=task_to_pb(task))

    async def ResolveUncertain(self, request, context) -> pb.ResolveUncertainResponse:
        resolution = RESOLUTIONS.domain("resolution", request.resolution)
        task = await self._tasks.get(current_user(), request.task_id)
        task = await self._replies.resolve(task, request.step, resolution, request.note)
        return pb.ResolveUncertainResponse(task=task_to_pb(task))

    async def GetStepScreenshot(self, request, context) -> pb.GetStepScreenshotResponse:
        """The picture of a step's page (the person's, never the model's)."""
        picture = await self._tasks.step_picture(
            current_user(), request.task_id, request.step, look=request.look
        )
        return pb.GetStepScreenshotResponse(image=picture.image, media_type=picture.media_type)

    async def LookForMe(self, request, context) -> pb.LookForMeResponse:
        """A read-only look where the uncertain step's result would show (G14)."""
        task = await self._tasks.get(current_user(), request.task_id)
        found = await self._looks.look_for_me(task, request.step)
        task = await self._tasks.get(current_user(), task.id)
        return pb.LookForMeResponse(look=look_to_pb(found), task=task_to_pb(task))

    async def DeleteStepScreenshots(self, request, context) -> pb.DeleteStepScreenshotsResponse:
        erased = await self._tasks.erase_pictures(current_user())
        return pb.DeleteStepScreenshotsResponse(deleted=erased)

    async def EraseTaskWords(self, request, context) -> pb.EraseTaskWordsResponse:
        done = await self._tasks.erase_words(current_user())
        return pb.EraseTaskWordsResponse(erased=done.erased, still_going=done.still_going)


def _event_number(field: str, value: int) -> int:
    if value < 0:
        raise InvalidArgument(field, "must be 0 or an event number")
    return value
