"""What an operator's Prometheus sees while a person uses nod: the demo
sign-in started from the gateway's page, its one-time code given, the task
done; then every process's /metrics, scraped as Prometheus scrapes them,
moved as the task did: the gateway's route counted under its template, the
claims granted and submitted, the scripted planner's model requests, the
task DONE. No id, code or name of the person in any of it."""

import asyncio

from nod.claims.v1 import claims_pb2 as claims
from nod.claims.v1 import claims_pb2_grpc
from nod.tasks.v1 import tasks_pb2 as pb
from nod.tasks.v1 import tasks_pb2_grpc
from nodtest.make_run import SERVICES
from nodtest.metrics import Scrape, scrape, scrape_until

from .shop import one_time_code
from .web_client import csrf_of, signed_in_client

SIGN_IN_TASK = "Sign in to the demo shop"
CLAIM = "/nod.claims.v1.ClaimsService/Claim"
ENDED = (pb.TASK_STATE_DONE, pb.TASK_STATE_FAILED, pb.TASK_STATE_STOPPED)


async def scrape_all(nod) -> dict[str, Scrape]:
    scrapes = await asyncio.gather(*(scrape(nod.metrics_addresses[name]) for name in SERVICES))
    return dict(zip(SERVICES, scrapes, strict=True))


def records(got: Scrape, service: str, record: str, state: str) -> float:
    return got.value("nod_records", service=service, record=record, state=state)


async def give_codes_until_done(nod, task_id: str) -> tuple[pb.Task, list[str]]:
    """The person's side of the sign-in: the shop's one-time code in the
    private form (as the page's form sends it, through the claims vault)."""
    meta = nod.meta()
    vault = claims_pb2_grpc.VaultServiceStub(nod.channel("claims"))
    tasks = tasks_pb2_grpc.TasksServiceStub(nod.channel("tasks"))
    given: list[str] = []
    deadline = asyncio.get_running_loop().time() + 180
    while asyncio.get_running_loop().time() < deadline:
        task = (await tasks.GetTask(pb.GetTaskRequest(task_id=task_id), metadata=meta)).task
        if task.state in ENDED:
            return task, given
        wait = task.wait
        if task.state == pb.TASK_STATE_WAITING and wait.kind == pb.WAIT_KIND_PRIVATE_FORM:
            code = await one_time_code()
            given.append(code)
            entry = await vault.PutPrivateEntry(
                claims.PutPrivateEntryRequest(
                    task_id=task_id,
                    kind=claims.ENTRY_KIND_ONE_TIME_CODE,
                    fields={"code": code},
                    # The page the task's form was asked for, as the gateway passes it.
                    origin=wait.origin,
                    frame_origin=wait.frame_origin,
                ),
                metadata=meta,
            )
            await tasks.SubmitPrivateForm(
                pb.SubmitPrivateFormRequest(task_id=task_id, form_id=wait.id, item_id=entry.id),
                metadata=meta,
            )
        await asyncio.sleep(0.3)
    raise AssertionError(f"the sign-in task never ended: {task}")


def errors_logged(nod) -> list[str]:
    return [line for line in nod.log_text().splitlines() if '"level": "error"' in line][-5:]


async def test_every_process_metrics_move_as_a_demo_task_runs(nod):
    before = await scrape_all(nod)
    async with signed_in_client(nod.gateway_url, "ada", nod.web_password()) as client:
        csrf = csrf_of((await client.get("/tasks")).text)
        started = await client.post(
            "/tasks", data={"csrf": csrf, "text": SIGN_IN_TASK, "request_id": "metrics-1"}
        )
        assert started.status_code == 303, started.text
        task_path = started.headers["location"]
        task_id = task_path.rsplit("/", 1)[-1]
        task, codes = await give_codes_until_done(nod, task_id)
        assert task.state == pb.TASK_STATE_DONE, (task.message, errors_logged(nod))
        assert (await client.get(task_path)).status_code == 200

    done_before = records(before["tasks"], "tasks", "task", "done")
    tasks_after = await scrape_until(
        nod.metrics_addresses["tasks"],
        lambda got: records(got, "tasks", "task", "done") >= done_before + 1,
    )
    submitted_before = records(before["claims"], "claims", "claim", "submitted")
    # The saved login and the one-time code: each entered under a claim.
    claims_after = await scrape_until(
        nod.metrics_addresses["claims"],
        lambda got: records(got, "claims", "claim", "submitted") >= submitted_before + 2,
    )
    after = await scrape_all(nod) | {"tasks": tasks_after, "claims": claims_after}

    def rose(service: str, name: str, **labels: str) -> float:
        return after[service].value(name, **labels) - before[service].value(name, **labels)

    assert rose("claims", "nod_rpc_calls_total", method=CLAIM, code="OK") >= 2
    assert rose("claims", "nod_rpc_duration_seconds_count", method=CLAIM) >= 2
    model_requests = "nod_model_requests_total"
    assert rose("tasks", model_requests, provider="scripted", status="ok") >= 3
    # The route's template, never the task's own path.
    assert rose("gateway", "nod_http_requests_total", route="/tasks", method="POST", status="303")
    assert rose(
        "gateway", "nod_http_requests_total", route="/tasks/{task_id}", method="GET", status="200"
    )
    assert rose("gateway", "nod_http_request_duration_seconds_count", route="/tasks", method="POST")
    assert after["tasks"].value("nod_queue_depth", service="tasks", queue="tasks") >= 0
    assert after["tasks"].has("nod_queue_oldest_age_seconds")
    assert after["browser"].has("nod_browser_sessions_open")
    for service in ("approvals", "payments"):
        assert after[service].has("nod_records"), service
    for service in ("claims", "approvals", "payments", "tasks", "gateway"):
        assert after[service].has("nod_db_pool_in_use"), service
    for name, got in after.items():
        assert task_id not in got.text, name
        # (A code's six digits may well appear in a byte count: labels only.)
        values = {value for _, pairs in got.samples for _, value in pairs}
        assert not values & {"ada", *codes}, name
        assert not any(task_id in value for value in values), name
