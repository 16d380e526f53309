"""The tasks tests' system: the services a task drives (claims, approvals,
payments, the browser runner) as real processes, the demo shop and demo app
as the outside world, a local model server, and the tasks service itself
built by its wiring and started the way `serve` starts it."""

import pytest

from nod.tasks.v1 import tasks_pb2_grpc
from nod_tasks import MIGRATIONS
from nod_tasks.settings import TasksSettings
from nod_tasks.wiring import build
from nodkit import service
from nodkit.client import open_channel
from nodtest.processes import Peer, ServiceProcess, free_port, wait_until_serving

from .model_server import ModelServer
from .support import Peers, Person, seed_person


@pytest.fixture(scope="session")
async def peers(service_env, tmp_path_factory):
    """claims, approvals, payments and the browser runner, for the session."""
    logs = tmp_path_factory.mktemp("peers")
    # Sweeps only at boot: the tests decide when a lease lapses.
    quiet = {"NOD_CLAIMS_SWEEP_INTERVAL_S": "3600"}
    claims = await Peer("claims", {**service_env, **quiet}, logs / "claims.log").start()
    env = {**service_env, "NOD_CLAIMS_ADDR": claims.address}
    approvals_env = {**env, "NOD_APPROVALS_ALLOWED_NETWORKS": "127.0.0.0/8"}
    approvals = await Peer("approvals", approvals_env, logs / "approvals.log").start()
    payments = await Peer("payments", env, logs / "payments.log").start()
    # Navigations keep the default 15 s: a real web application's page on a
    # loaded machine took more than 5. Entries end sooner, for the tests
    # whose site holds its answer.
    browser_env = {**env, "NOD_BROWSER_ENTRY_TIMEOUT_S": "10"}
    browser = await Peer("browser", browser_env, logs / "browser.log").start()
    running = Peers(claims, approvals, payments, browser)
    yield running
    for peer in (browser, payments, approvals, claims):
        peer.stop()


@pytest.fixture(scope="session")
def tasks_migrated(database_url) -> str:
    MIGRATIONS.upgrade(database_url)
    return database_url


def tasks_settings(database_url, service_token, peers: Peers, **overrides) -> TasksSettings:
    values = {
        "instance_id": "tasks-test",
        "claims_addr": peers.claims.address,
        "approvals_addr": peers.approvals.address,
        "payments_addr": peers.payments.address,
        "browser_addr": peers.browser.address,
        "outside_waits_poll_s": 0.05,
        "watch_poll_s": 0.05,
        "model_timeout_s": 5.0,
        # Page pictures are the subject of test_step_screenshots.py (which
        # turns them on); elsewhere they would only add up to a few hundred
        # ms per page step on a loaded machine to tests of other things.
        "screenshot_bytes_per_task": 0,
        **overrides,
    }
    return TasksSettings(database_url=database_url, service_token=service_token, **values)


@pytest.fixture
async def tasks_served(tasks_migrated, service_token, peers, log_tee, db):
    """serve(**settings) -> (address, TasksService stub) of a fresh
    in-process tasks service (its own instance id unless given); stopped
    after the test, and the test's live tasks with it (the queue is shared:
    a task left queued would be run by the next test's service)."""
    started = []

    async def serve(**overrides):
        overrides.setdefault("instance_id", f"tasks-test-{len(started)}")
        settings = tasks_settings(tasks_migrated, service_token, peers, **overrides)
        running = await service.start(await build(settings), settings, listen="127.0.0.1:0")
        channel = open_channel(running.address)
        started.append((running, channel))
        return running.address, tasks_pb2_grpc.TasksServiceStub(channel)

    yield serve
    for running, channel in reversed(started):
        await channel.close()
        await running.stop()
    await db.execute(
        "UPDATE tasks.tasks SET state = 'stopped', runner_instance = NULL, wait = NULL"
        " WHERE state IN ('queued', 'running', 'waiting')"
    )


@pytest.fixture
def tasks_with(tasks_served):
    """start(**settings) -> a TasksService stub of a fresh in-process tasks
    service, as tasks_served starts it."""

    async def start(**overrides):
        return (await tasks_served(**overrides))[1]

    return start


@pytest.fixture
async def model_server():
    server = await ModelServer().start()
    yield server
    await server.close()


@pytest.fixture
async def demo_person(peers, person, as_person, shop_site, webhook_app) -> Person:
    """The person with a saved login for the shop (one-time-code step), a
    card and the demo app connected as a webhook account."""
    return await seed_person(peers, person, as_person, shop_site, webhook_app)


@pytest.fixture
async def webhook_app():
    from nod_demo.webhook_app import start_webhook_app

    runner, url, state = await start_webhook_app()
    state.url = url
    yield state
    await runner.cleanup()


@pytest.fixture
def tasks_process(tasks_migrated, service_env, peers, model_server, tmp_path):
    """start(instance_id, **settings) -> (process, stub) of `python -m nod_tasks serve`."""
    made = []

    async def start(instance_id: str, address: str | None = None, **settings):
        address = address or f"127.0.0.1:{free_port()}"
        env = {
            **service_env,
            "NOD_INSTANCE_ID": instance_id,
            "NOD_TASKS_LISTEN": address,
            "NOD_CLAIMS_ADDR": peers.claims.address,
            "NOD_APPROVALS_ADDR": peers.approvals.address,
            "NOD_PAYMENTS_ADDR": peers.payments.address,
            "NOD_BROWSER_ADDR": peers.browser.address,
            "NOD_MODEL_URL": model_server.url,
            "NOD_TASKS_OUTSIDE_WAITS_POLL_S": "0.05",
            **{f"NOD_TASKS_{k.upper()}": str(v) for k, v in settings.items()},
        }
        process = ServiceProcess("nod_tasks", env, tmp_path / f"{instance_id}.log")
        process.start()
        made.append(process)
        await wait_until_serving(address)
        return process, tasks_pb2_grpc.TasksServiceStub(open_channel(address)), address

    yield start
    for process in made:
        process.stop()
