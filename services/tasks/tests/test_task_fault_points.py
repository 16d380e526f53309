"""G5, G6, G7, G11 and G12 at every fault point of a task: the tasks service
runs as a process armed with NOD_FAULTS, and a flow reaches the point (an
app action proposed and said yes to, a saved login on the demo shop, a
private form, Stop, Continue). The fault fires: a SIGKILL, an unexpected
error, or a hang. An error or a hang is then followed by a stop as
deployed (SIGTERM), which must end the process even so; the service
restarts without faults.

What ends a hang: inside a run (taken, a model request, a tool call) the
step deadline (NOD_TASKS_STEP_DEADLINE_S, short here) does, with nobody's
Stop and no restart: the tests show the task still RUNNING after the fault,
then INTERRUPTED by the deadline saying it took too long, its step in
flight ended as cut off, while the process still runs. A run hung once its
task is committed WAITING is ended by the same deadline, and the task still
waits. In a call (StartTask, SubmitPrivateForm, Stop, Continue) the
caller's deadline ends the call and what was committed goes on.

Then the person does what they would: says yes to the action the task asks
about (once), checks an uncertain step, or says Continue to a task that
ended early, to a model that insists on the same saved login or app action
(with new_action_reason). Counted by the demo shop and the demo app: at
most one submission and one send; nothing RUNNING once the task settles;
and nothing cut off is entered again."""

import asyncio
import signal
import uuid
from dataclasses import dataclass

import grpc
import pytest

from nod.approvals.v1 import approvals_pb2 as approvals
from nod.tasks.v1 import tasks_pb2 as pb
from nodtest import fault_cases
from nodtest.demo import shop_count

from .model_server import tool_call
from .slow_start import TasksProcesses, start_peers
from .support import (
    Person,
    note_action,
    one_time_code,
    steps_of,
    type_into_form,
    wait_for,
)

pytestmark = pytest.mark.fault_points

INSISTS = "the person said continue: do it once more"
CALL_S = 8.0
HUNG_CALL_S = 2.0
# The step deadline of a process armed with a hang: well above a legitimate
# step (a browser entry on the demo shop), and how long the deadline may
# take to end a hung run once it passed, on a busy machine.
STEP_DEADLINE_S = 12.0
DEADLINE_ENDS_WITHIN_S = STEP_DEADLINE_S + 30.0
TOOK_TOO_LONG = "made no progress for 12 s"
SETTLED = (
    pb.TASK_STATE_WAITING,
    pb.TASK_STATE_DONE,
    pb.TASK_STATE_FAILED,
    pb.TASK_STATE_STOPPED,
    pb.TASK_STATE_INTERRUPTED,
)


@dataclass(frozen=True)
class Case:
    flow: str  # note: an app action; login: a saved login; form: a private form
    # The pass of the point the fault fires at (a login's second step is its entry).
    hit: int = 1
    # What the person does to reach the point after the task starts.
    stage: str = "start"


CASES = {
    "tasks.queued": Case("note"),
    "tasks.taken": Case("note"),
    "tasks.model_request_sent": Case("note"),
    "tasks.model_answered": Case("note"),
    "tasks.waiting": Case("note"),
    "tasks.stop_received": Case("note", stage="stop"),
    "tasks.continue_received": Case("note", stage="continue"),
    "tasks.tool_call_running": Case("login", hit=2),
    "tasks.peer_called": Case("login", hit=2),
    "tasks.result_recorded": Case("login", hit=2),
    "tasks.form_accepted": Case("form", stage="form"),
}

# The task once the restarted service settled it, before the person acts.
INTERRUPTED_OR_FAILED = {
    "kill": pb.TASK_STATE_INTERRUPTED,
    "raise": pb.TASK_STATE_FAILED,
    "hang": pb.TASK_STATE_INTERRUPTED,
}
# A kill just after a commit that queued the task may find it taken by the
# worker already: the restart then finds it INTERRUPTED instead.
QUEUED_THEN_KILLED = {pb.TASK_STATE_INTERRUPTED}
QUEUING_POINTS = {"tasks.queued", "tasks.form_accepted", "tasks.continue_received"}
AFTER_RESTART = {
    "tasks.queued": dict.fromkeys(fault_cases.ACTIONS, pb.TASK_STATE_WAITING),
    "tasks.taken": INTERRUPTED_OR_FAILED,
    "tasks.model_request_sent": INTERRUPTED_OR_FAILED,
    "tasks.model_answered": INTERRUPTED_OR_FAILED,
    "tasks.waiting": dict.fromkeys(fault_cases.ACTIONS, pb.TASK_STATE_WAITING),
    "tasks.stop_received": dict.fromkeys(fault_cases.ACTIONS, pb.TASK_STATE_STOPPED),
    "tasks.continue_received": dict.fromkeys(fault_cases.ACTIONS, pb.TASK_STATE_WAITING),
    "tasks.tool_call_running": INTERRUPTED_OR_FAILED,
    # An error after the entry: its step ends UNCERTAIN and the person is asked to check.
    "tasks.peer_called": {**INTERRUPTED_OR_FAILED, "raise": pb.TASK_STATE_WAITING},
    "tasks.result_recorded": INTERRUPTED_OR_FAILED,
    "tasks.form_accepted": dict.fromkeys(fault_cases.ACTIONS, pb.TASK_STATE_DONE),
}
# What the outside world received in the end: the demo app's sends for an
# app action (none once the task was stopped before its yes: the action
# proposed again after Continue repeats the first, so a plain yes to it is
# refused as a possible duplicate), the demo shop's sign-ins for a login.
SENT = {"tasks.stop_received": 0, "tasks.continue_received": 0}
LOGINS = {"tasks.tool_call_running": 0, "tasks.peer_called": 1, "tasks.result_recorded": 1}
# A hang inside a run: the step deadline ends it.
HANGS_IN_A_RUN = {
    "tasks.taken",
    "tasks.model_request_sent",
    "tasks.model_answered",
    "tasks.tool_call_running",
    "tasks.peer_called",
    "tasks.result_recorded",
}


def saved_login(person: Person, **more) -> tuple:
    fields = {"username": "#username", "password": "#password"}
    arguments = {"login_id": person.login.id, "fields": fields, "submit": "#login button", **more}
    return tool_call("enter_saved_login", arguments)


def first_script(flow: str, person: Person, shop_url: str) -> list:
    finish = tool_call("finish", {"message": "done"})
    if flow == "note":
        return [note_action(person), finish]
    if flow == "login":
        return [tool_call("navigate", {"url": f"{shop_url}/login"}), saved_login(person), finish]
    reason = {"kind": "one_time_code", "reason": "the shop asks for a code"}
    # A private form is for the page the task read (G13).
    return [
        tool_call("navigate", {"url": f"{shop_url}/login"}),
        tool_call("ask_private_form", reason),
        finish,
    ]


def insisting_script(point: str, flow: str, person: Person) -> list:
    """The same action again, with a reason; a login that got through is
    repeated as it was (a reason would make it a new sign-in, which G6 allows)."""
    finish = tool_call("finish", {"message": "stopped trying"})
    if flow == "note":
        return [note_action(person, new_action_reason=INSISTS), finish]
    if flow == "login":
        if point == "tasks.result_recorded":
            return [saved_login(person), finish]
        return [saved_login(person, new_action_reason=INSISTS), finish]
    return [finish]


async def tolerate(call, timeout_s: float):
    """A call the fault may cut off: its answer, or the error's code."""
    try:
        return await asyncio.wait_for(call, timeout_s)
    except grpc.aio.AioRpcError as error:
        return error.code()
    except TimeoutError:
        return grpc.StatusCode.DEADLINE_EXCEEDED


async def settled(stub, meta, task_id: str, timeout_s: float = 30.0) -> pb.Task:
    return await wait_for(stub, meta, task_id, lambda t: t.state in SETTLED, timeout_s=timeout_s)


async def running_rows(db, task_id: str) -> tuple[int, int]:
    """(the task RUNNING?, its steps RUNNING), as the tables hold them. A
    step waiting for the person is stored running on no instance; only the
    one the task waits for now may be so."""
    cursor = await db.execute(
        "SELECT (SELECT count(*) FROM tasks.tasks WHERE id = %(task)s AND state = 'running'),"
        " (SELECT count(*) FROM tasks.steps s JOIN tasks.tasks t ON t.id = s.task_id"
        "  WHERE s.task_id = %(task)s AND s.state = 'running'"
        "  AND (s.runner_instance IS NOT NULL OR t.state <> 'waiting'"
        "       OR (t.wait ->> 'step')::int IS DISTINCT FROM s.number))",
        {"task": task_id},
    )
    row = await cursor.fetchone()
    return row[0], row[1]


async def nothing_running(db, task_id: str, within_s: float = 20.0) -> None:
    """Neither the task nor any step of it left RUNNING. The task and its
    steps in flight are ended by the reconcile itself; a step that waited
    for the person ends once the task's end is told (endings, each sweep)."""
    deadline = asyncio.get_running_loop().time() + within_s
    while (rows := await running_rows(db, task_id)) != (0, 0):
        assert asyncio.get_running_loop().time() < deadline, f"left RUNNING: {rows}"
        await asyncio.sleep(0.2)


async def fired(process, point: str, timeout_s: float = 30.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not any(
        "faults.fired" in line and point in line for line in process.log_text().splitlines()
    ):
        assert asyncio.get_running_loop().time() < deadline, f"{point} never fired"
        await asyncio.sleep(0.05)


async def submit_code(stub, person: Person, task: pb.Task, timeout_s: float):
    entry_id = await type_into_form(person, task, {"code": one_time_code()})
    request = pb.SubmitPrivateFormRequest(task_id=task.id, form_id=task.wait.id, item_id=entry_id)
    return request, await tolerate(stub.SubmitPrivateForm(request, metadata=person.meta), timeout_s)


async def reach_the_point(stub, person: Person, case: Case, task_id: str, timeout_s: float):
    """What the person does to reach the point; the request the fault met."""
    meta = person.meta
    if case.stage in ("stop", "continue"):
        await wait_for(stub, meta, task_id, lambda t: t.state == pb.TASK_STATE_WAITING)
        stop = stub.Stop(pb.StopRequest(task_id=task_id), metadata=meta)
        return None, await tolerate(stop, timeout_s if case.stage == "stop" else CALL_S)
    if case.stage == "form":
        task = await wait_for(stub, meta, task_id, lambda t: t.state == pb.TASK_STATE_WAITING)
        return await submit_code(stub, person, task, timeout_s)
    return None, None


async def stop_after_the_fault(process, action: str) -> None:
    """A killed process is gone already; any other stops as deployed."""
    popen = process.process
    if action == "kill":
        assert await asyncio.to_thread(popen.wait, 15) == -signal.SIGKILL
        return
    assert popen.poll() is None, "an error or a hang must not end the process"
    assert await asyncio.to_thread(process.kill, signal.SIGTERM, 20) == 0


class PersonActs:
    """The person's part after the restart: yes once, to the first action
    the task asks about; a check of an uncertain step; Continue to a task
    that ended early."""

    def __init__(self, stub, person: Person) -> None:
        self.stub = stub
        self.person = person
        self.said_yes = False
        self.refused = False
        self.continued = False

    async def until_settled(self, task: pb.Task) -> pb.Task:
        meta = self.person.meta
        for _ in range(4):
            if task.state == pb.TASK_STATE_WAITING and task.wait.kind == pb.WAIT_KIND_DECISION:
                if self.said_yes:
                    return task
                self.said_yes = True
                yes = approvals.DecideRequest(
                    approval_id=task.wait.id, decision=approvals.DECISION_YES
                )
                try:
                    await self.person.approvals.Decide(yes, metadata=meta)
                except grpc.aio.AioRpcError as error:
                    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION, error
                    self.refused = True
                    return task
            elif task.state == pb.TASK_STATE_WAITING and task.wait.kind == pb.WAIT_KIND_CHECK:
                await self.stub.ResolveUncertain(
                    pb.ResolveUncertainRequest(
                        task_id=task.id, step=int(task.wait.id), resolution=pb.RESOLUTION_HAPPENED
                    ),
                    metadata=meta,
                )
            elif task.state in SETTLED and task.state != pb.TASK_STATE_DONE and not self.continued:
                if task.state == pb.TASK_STATE_WAITING:
                    return task
                self.continued = True
                await self.stub.Continue(
                    pb.ContinueRequest(task_id=task.id, text="I checked; go on"), metadata=meta
                )
            else:
                return task
            before = task.updated_at
            task = await wait_for(
                self.stub,
                meta,
                task.id,
                lambda t, before=before: t.updated_at != before and t.state in SETTLED,
            )
        raise AssertionError(f"the task never settled: {task}")


@pytest.fixture(scope="module")
async def peers(service_env, tmp_path_factory):
    """conftest's peers, given longer to start."""
    running = await start_peers(service_env, tmp_path_factory.mktemp("peers"))
    yield running
    for peer in (running.browser, running.payments, running.approvals, running.claims):
        peer.stop()


@pytest.fixture
async def tasks_processes(tasks_migrated, service_env, peers, model_server, tmp_path, db):
    """Stopped after the test, and the test's live tasks with them (the queue
    is shared: a task left queued would be run by the next test's service)."""
    made = TasksProcesses(service_env, peers, model_server.url, tmp_path)
    yield made
    made.stop_all()
    await db.execute(
        "UPDATE tasks.tasks SET state = 'stopped', runner_instance = NULL, wait = NULL"
        " WHERE state IN ('queued', 'running', 'waiting')"
    )


@pytest.mark.parametrize(("point", "action"), fault_cases.cases(CASES))
async def test_a_task_cut_off_at_a_fault_point_does_nothing_twice(
    tasks_processes, model_server, demo_person, shop_site, webhook_app, db, point, action
):
    case = CASES[point]
    instance = f"tasks-fault-{uuid.uuid4().hex[:8]}"
    model_server.script = first_script(case.flow, demo_person, shop_site.url)
    faults = {
        "NOD_FAULTS": f"{point}={action}#{case.hit}",
        "NOD_SHUTDOWN_GRACE_S": "0.3",
        "NOD_TASKS_STEP_DEADLINE_S": str(STEP_DEADLINE_S),
    }
    process, stub, address = await tasks_processes.start(instance, **faults)
    meta = demo_person.meta
    # Only the call that meets a hang is given up on early.
    timeout_s = HUNG_CALL_S if action == "hang" else CALL_S

    start = pb.StartTaskRequest(text=f"fault at {point}", request_id=uuid.uuid4().hex)
    start_s = timeout_s if point == "tasks.queued" else CALL_S
    started = await tolerate(stub.StartTask(start, metadata=meta), start_s)
    if isinstance(started, pb.StartTaskResponse):
        task_id = started.task.id
    else:  # the fault met StartTask itself: the task is found by its request id
        assert point == "tasks.queued", started
        task_id = ""
    if case.stage == "continue":
        await reach_the_point(stub, demo_person, case, task_id, CALL_S)
        model_server.script = insisting_script(point, case.flow, demo_person)
        cont = stub.Continue(pb.ContinueRequest(task_id=task_id, text="go on"), metadata=meta)
        await tolerate(cont, timeout_s)
        resend = None
    else:
        resend, _answer = await reach_the_point(stub, demo_person, case, task_id, timeout_s)
    await fired(process, point)
    if not task_id and action != "kill":
        # The start's answer was lost: the resend finds the first task.
        task_id = (await stub.StartTask(start, metadata=meta)).task.id

    if action != "kill" and task_id:
        if action == "hang" and point in HANGS_IN_A_RUN:
            # The hung run still runs, until its step deadline cuts it off.
            await asyncio.sleep(0.5)
            hung = (await stub.GetTask(pb.GetTaskRequest(task_id=task_id), metadata=meta)).task
            assert hung.state == pb.TASK_STATE_RUNNING
            task = await settled(stub, meta, task_id, timeout_s=DEADLINE_ENDS_WITHIN_S)
            assert task.state == pb.TASK_STATE_INTERRUPTED, task
            assert TOOK_TOO_LONG in task.message, task
            await nothing_running(db, task_id)
        else:
            task = await settled(stub, meta, task_id)
            # Settled by the faulted service itself: nothing of it left RUNNING.
            await nothing_running(db, task_id)
            if action == "hang" and point == "tasks.waiting":
                # The hung run's deadline passes: the task still waits.
                await asyncio.sleep(STEP_DEADLINE_S + 2.0)
                waits = await stub.GetTask(pb.GetTaskRequest(task_id=task_id), metadata=meta)
                assert waits.task.state == pb.TASK_STATE_WAITING, waits.task
                assert waits.task.wait.id == task.wait.id
    await stop_after_the_fault(process, action)

    model_server.script = insisting_script(point, case.flow, demo_person)
    _, stub, _ = await tasks_processes.start(instance, address)
    if not task_id:
        # The start's answer was lost: the resend finds the first task.
        task_id = (await stub.StartTask(start, metadata=meta)).task.id
        assert (await stub.StartTask(start, metadata=meta)).task.id == task_id
    task = await settled(stub, meta, task_id)
    allowed = {AFTER_RESTART[point][action]}
    if action == "kill" and point in QUEUING_POINTS:
        allowed |= QUEUED_THEN_KILLED
    assert task.state in allowed, task
    await nothing_running(db, task_id)
    if resend is not None:
        # The form's answer was lost: the resend finds it taken already.
        again = await tolerate(stub.SubmitPrivateForm(resend, metadata=meta), CALL_S)
        assert again == grpc.StatusCode.FAILED_PRECONDITION

    person = PersonActs(stub, demo_person)
    task = await person.until_settled(task)

    await nothing_running(db, task_id)
    await asyncio.sleep(0.3)  # anything sent late would have arrived by now
    if case.flow == "login":
        assert shop_count(shop_site, "login") == LOGINS[point]
        entries = [s for s in await steps_of(stub, meta, task_id) if s.tool == "enter_saved_login"]
        first, *repeats = entries
        assert [s.state for s in repeats] == [pb.STEP_STATE_NOT_RUN], entries
        if point != "tasks.result_recorded":
            assert first.state == pb.STEP_STATE_UNCERTAIN
    elif case.flow == "note":
        assert len(webhook_app.received) == SENT.get(point, 1)
        assert person.refused == (point in SENT)
    if case.flow == "form":
        filled = [s for s in await steps_of(stub, meta, task_id) if s.tool == "ask_private_form"]
        assert [s.state for s in filled] == [pb.STEP_STATE_DONE]
