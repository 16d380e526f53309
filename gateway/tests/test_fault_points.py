"""G6 and G7 at the gateway's fault points: a second gateway process runs
beside make run's, armed with NOD_FAULTS. The person's yes to an app action,
or their private form with a one-time code, reaches it and the fault fires
before anything is passed on: a SIGKILL, an unexpected error (a 500 page),
or a hang (the browser's own patience ends the wait). The gateway restarts
without faults and the person posts the same form again, as they would
after a lost answer: the decision or the code is taken once, the demo app
received the action once (the shop the code once), and a further post is
told it was already taken."""

import asyncio
import signal
import subprocess
import sys
import uuid

import httpx
import pytest

from nod.tasks.v1 import tasks_pb2 as tasks
from nod.tasks.v1 import tasks_pb2_grpc
from nodkit.client import wait_until_answering
from nodtest import fault_cases
from nodtest.processes import free_port

from .conftest import ROOT, second_gateway_env
from .outside import NOTE_TASK, SIGN_IN_TASK, app_received, counts_since
from .shop import one_time_code, shop_counts
from .web_client import csrf_of, signed_in_client

pytestmark = pytest.mark.fault_points

# How long the person's browser waits on a post that hangs.
PATIENCE_S = 3.0


class FaultedGateway:
    """`python -m nod_gateway serve` beside make run's, on an address of its
    own that stays the same across restarts."""

    def __init__(self, nod, log_path) -> None:
        self.address = f"127.0.0.1:{free_port()}"
        self.url = f"http://{self.address}"
        self.log_path = log_path
        self.env = {
            **second_gateway_env(nod, self.address, "test-faulted-gateway"),
            "NOD_SHUTDOWN_GRACE_S": "0.3",
        }
        self.process: subprocess.Popen | None = None

    async def start(self, faults: str = "") -> None:
        env = {**self.env, "NOD_FAULTS": faults}
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(  # noqa: ASYNC220 - the wait below is off the loop
                [sys.executable, "-m", "nod_gateway", "serve"],
                env=env,
                cwd=ROOT,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        await asyncio.to_thread(wait_until_answering, f"{self.url}/healthz", 60)

    def fired(self, point: str) -> bool:
        lines = self.log_path.read_text(errors="replace").splitlines()
        return any("faults.fired" in line and point in line for line in lines)

    async def end_after(self, action: str) -> None:
        """A killed gateway is gone already; any other stops as deployed."""
        assert self.process is not None
        if action == "kill":
            assert await asyncio.to_thread(self.process.wait, 15) == -signal.SIGKILL
            return
        assert self.process.poll() is None, "an error or a hang must not end the gateway"
        self.process.send_signal(signal.SIGTERM)
        # uvicorn stops gracefully, then ends by the signal it was sent.
        assert await asyncio.to_thread(self.process.wait, 30) == -signal.SIGTERM

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=15)


@pytest.fixture
async def gateway(nod, tmp_path):
    faulted = FaultedGateway(nod, tmp_path / "gateway.log")
    yield faulted
    faulted.stop()


async def post_meeting_the_fault(client: httpx.AsyncClient, path: str, data: dict):
    """The post's status, or the kind of failure that cut it off."""
    try:
        return (await client.post(path, data=data, timeout=PATIENCE_S)).status_code
    except httpx.TimeoutException:
        return "timed out"
    except httpx.TransportError:
        return "connection lost"


EXPECTED_FAILURE = {"kill": "connection lost", "raise": 500, "hang": "timed out"}


async def task_waiting(nod, task_id: str, kind: int) -> tasks.Task:
    stub = tasks_pb2_grpc.TasksServiceStub(nod.channel("tasks"))
    deadline = asyncio.get_running_loop().time() + 90
    while True:
        request = tasks.GetTaskRequest(task_id=task_id)
        task = (await stub.GetTask(request, metadata=nod.meta())).task
        if task.state == tasks.TASK_STATE_WAITING and task.wait.kind == kind:
            return task
        assert asyncio.get_running_loop().time() < deadline, f"the task never waited: {task}"
        await asyncio.sleep(0.2)


async def start_task(client: httpx.AsyncClient, text: str) -> tuple[str, str]:
    csrf = csrf_of((await client.get("/tasks")).text)
    data = {"csrf": csrf, "text": text, "request_id": uuid.uuid4().hex}
    started = await client.post("/tasks", data=data)
    assert started.status_code == 303, started.text
    return started.headers["location"].rsplit("/", 1)[1], csrf


async def task_state(nod, task_id: str) -> tasks.Task:
    stub = tasks_pb2_grpc.TasksServiceStub(nod.channel("tasks"))
    return (await stub.GetTask(tasks.GetTaskRequest(task_id=task_id), metadata=nod.meta())).task


async def entered(shop: str, before: dict[str, int]) -> None:
    deadline = asyncio.get_running_loop().time() + 60
    while counts_since(shop, before)["otp"] < 1:
        assert asyncio.get_running_loop().time() < deadline, "the code was never entered"
        await asyncio.sleep(0.2)


def named(point: str):
    """Case ids that name their point, as every fault-point case's do
    (tests/test_fault_points.py finds each point's cases by them)."""
    return lambda action: f"{point}-{action}"


@pytest.mark.parametrize(
    "action", fault_cases.actions("gateway.decision_posted"), ids=named("gateway.decision_posted")
)
async def test_a_yes_cut_off_in_the_gateway_is_taken_once(nod, gateway, action):
    app = nod.urls["app"]
    await gateway.start(f"gateway.decision_posted={action}")
    async with signed_in_client(gateway.url, "ada", nod.web_password()) as client:
        task_id, csrf = await start_task(client, NOTE_TASK)
        asked = await task_waiting(nod, task_id, tasks.WAIT_KIND_DECISION)
        before = len(app_received(app))
        decide = f"/approvals/{asked.wait.id}/decide"
        yes = {"csrf": csrf, "decision": "yes"}

        assert await post_meeting_the_fault(client, decide, yes) == EXPECTED_FAILURE[action]
        assert gateway.fired("gateway.decision_posted")
        await gateway.end_after(action)
        await gateway.start()

        # The person's resend after the lost answer: decided now, once.
        resent = await client.post(decide, data=yes)
        assert resent.status_code == 303, resent.text
        again = await client.post(decide, data=yes, headers={"hx-request": "true"})
        assert "already decided" in again.text
    await asyncio.sleep(0.3)
    assert len(app_received(app)) - before == 1


# Its turn comes after the yes's, so the fast tier meets a hang here.
@pytest.mark.parametrize(
    "action", fault_cases.actions("gateway.form_posted", offset=2), ids=named("gateway.form_posted")
)
async def test_a_private_form_cut_off_in_the_gateway_is_taken_once(nod, gateway, action):
    shop = nod.urls["shop"]
    await gateway.start(f"gateway.form_posted={action}")
    async with signed_in_client(gateway.url, "ada", nod.web_password()) as client:
        task_id, csrf = await start_task(client, SIGN_IN_TASK)
        asked = await task_waiting(nod, task_id, tasks.WAIT_KIND_PRIVATE_FORM)
        before = shop_counts(shop)
        form = f"/tasks/{task_id}/forms/{asked.wait.id}"
        code = {"csrf": csrf, "value": await one_time_code()}

        assert await post_meeting_the_fault(client, form, code) == EXPECTED_FAILURE[action]
        assert gateway.fired("gateway.form_posted")
        await gateway.end_after(action)
        await gateway.start()

        # Nothing was passed on: the task still waits for the code, and takes the resend.
        assert (await task_state(nod, task_id)).wait.id == asked.wait.id
        resent = await client.post(form, data=code)
        assert resent.status_code == 303, resent.text
        again = await client.post(form, data=code)
        assert again.status_code == 409
        assert code["value"] not in again.text
    await entered(shop, before)
    await asyncio.sleep(0.5)  # a second entry would have arrived by now
    assert counts_since(shop, before)["otp"] == 1
    stub = tasks_pb2_grpc.TasksServiceStub(nod.channel("tasks"))
    await stub.Stop(tasks.StopRequest(task_id=task_id), metadata=nod.meta())
    assert code["value"] not in gateway.log_path.read_text(errors="replace")
