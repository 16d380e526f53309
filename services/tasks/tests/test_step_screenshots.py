"""The picture of each step's page, for the person: after a step that
changes or reads a page, the browser's picture of it (private values
painted over there) is kept with the step, read back by the task's owner
alone, never sent to the model, capped per task, and erased for a person
being removed. A picture that fails or is late never fails the step."""

import base64

import grpc
import pytest

from nod.browser.v1 import browser_pb2, browser_pb2_grpc
from nod.tasks.v1 import tasks_pb2 as pb
from nodkit.client import call_metadata, open_channel

from .model_server import text, tool_call
from .support import begin, ended, steps_of, wait_for

# The tests here turn page pictures on (conftest turns them off elsewhere).
PICTURES_ON = 8 * 1024 * 1024
PNG = b"\x89PNG\r\n\x1a\n"


async def picture(stub, meta, task_id: str, step: int) -> pb.GetStepScreenshotResponse:
    request = pb.GetStepScreenshotRequest(task_id=task_id, step=step)
    return await stub.GetStepScreenshot(request, metadata=meta)


async def no_picture(stub, meta, task_id: str, step: int) -> grpc.StatusCode:
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        await picture(stub, meta, task_id, step)
    return raised.value.code()


async def run_task(stub, person, model_server, *calls) -> pb.Task:
    model_server.script = [*calls, text("Done.")]
    task = await begin(stub, person, "look at the shop's sign-in page")
    done = await wait_for(stub, person.meta, task.id, ended, timeout_s=60)
    assert done.state == pb.TASK_STATE_DONE, done.message
    return done


async def test_a_page_step_keeps_its_picture_for_its_owner_only(
    tasks_with, model_server, demo_person, service_token
):
    stub = await tasks_with(model_url=model_server.url, screenshot_bytes_per_task=PICTURES_ON)
    login = f"{demo_person.shop_url}/login"
    task = await run_task(
        stub,
        demo_person,
        model_server,
        tool_call("navigate", {"url": login}),
        tool_call("read_page", {}),
        tool_call("ask_person", {"question": ""}),  # refused: no page touched
    )
    meta = demo_person.meta

    first, second = [await picture(stub, meta, task.id, n) for n in (1, 2)]
    assert first.image.startswith(PNG) and first.media_type == "image/png"
    assert second.image.startswith(PNG)
    assert await no_picture(stub, meta, task.id, 3) == grpc.StatusCode.NOT_FOUND
    assert await no_picture(stub, meta, task.id, 99) == grpc.StatusCode.NOT_FOUND
    stranger = call_metadata(service_token, "someone-else")
    assert await no_picture(stub, stranger, task.id, 1) == grpc.StatusCode.NOT_FOUND
    # The model was told of the steps, and shown no picture of them.
    sent = model_server.everything_sent()
    assert len(model_server.requests) == 4
    for image in (first.image, second.image):
        assert base64.b64encode(image[:64]).decode()[:40] not in sent
    assert "iVBORw0KGgo" not in sent and "image_url" not in sent and "data:image" not in sent
    assert all(
        isinstance(message.get("content"), str | None)
        for body in model_server.requests
        for message in body["messages"]
    )


async def page_picture_size(peers, meta, url: str) -> int:
    """The size of the browser's picture of the page (one session's)."""
    channel = open_channel(peers.browser.address)
    browser = browser_pb2_grpc.BrowserServiceStub(channel)
    opened = await browser.OpenSession(
        browser_pb2.OpenSessionRequest(task_id="size"), metadata=meta
    )
    session = opened.session_id
    try:
        await browser.Navigate(
            browser_pb2.NavigateRequest(session_id=session, url=url), metadata=meta
        )
        shot = await browser.Screenshot(
            browser_pb2.ScreenshotRequest(session_id=session), metadata=meta
        )
    finally:
        await browser.CloseSession(
            browser_pb2.CloseSessionRequest(session_id=session), metadata=meta
        )
        await channel.close()
    return len(shot.image)


async def test_past_the_cap_later_pictures_are_not_kept(
    tasks_with, model_server, demo_person, peers, log_tee
):
    login = f"{demo_person.shop_url}/login"
    size = await page_picture_size(peers, demo_person.meta, login)
    # Room for one picture of the page and a half: the second doesn't fit.
    capped = await tasks_with(
        model_url=model_server.url, screenshot_bytes_per_task=size + size // 2
    )
    again = {"url": login, "new_action_reason": "look again"}
    task = await run_task(
        capped,
        demo_person,
        model_server,
        tool_call("navigate", {"url": login}),
        tool_call("navigate", again),
        tool_call("read_page", {}),
    )

    assert [s.state for s in await steps_of(capped, demo_person.meta, task.id)] == [
        pb.STEP_STATE_DONE
    ] * 3
    assert len((await picture(capped, demo_person.meta, task.id, 1)).image) == size
    for step in (2, 3):
        assert (
            await no_picture(capped, demo_person.meta, task.id, step) == grpc.StatusCode.NOT_FOUND
        )
    over = [line for line in log_tee.text().splitlines() if "step.screenshots_over_cap" in line]
    assert len(over) == 1 and task.id in over[0], "said once, then no more taken"


async def test_a_picture_that_is_late_never_holds_up_the_step(
    tasks_with, model_server, demo_person, log_tee
):
    stub = await tasks_with(
        model_url=model_server.url,
        screenshot_timeout_s=0.001,
        screenshot_bytes_per_task=PICTURES_ON,
    )
    login = f"{demo_person.shop_url}/login"
    task = await run_task(stub, demo_person, model_server, tool_call("navigate", {"url": login}))

    assert await no_picture(stub, demo_person.meta, task.id, 1) == grpc.StatusCode.NOT_FOUND
    late = [line for line in log_tee.text().splitlines() if "step.screenshot_not_kept" in line]
    assert late and task.id in late[-1]


async def test_a_removed_persons_pictures_are_erased(
    tasks_with, model_server, demo_person, service_token
):
    stub = await tasks_with(model_url=model_server.url, screenshot_bytes_per_task=PICTURES_ON)
    login = f"{demo_person.shop_url}/login"
    task = await run_task(stub, demo_person, model_server, tool_call("navigate", {"url": login}))
    meta = demo_person.meta
    await picture(stub, meta, task.id, 1)

    stranger = call_metadata(service_token, "someone-else")
    theirs = await stub.DeleteStepScreenshots(pb.DeleteStepScreenshotsRequest(), metadata=stranger)
    assert theirs.deleted == 0
    await picture(stub, meta, task.id, 1)  # still there
    mine = await stub.DeleteStepScreenshots(pb.DeleteStepScreenshotsRequest(), metadata=meta)

    assert mine.deleted >= 1
    assert await no_picture(stub, meta, task.id, 1) == grpc.StatusCode.NOT_FOUND
    # The task and its steps stay: the person's record of what nod did.
    assert len(await steps_of(stub, meta, task.id)) == 1
