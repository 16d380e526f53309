"""The approvals tests' fixtures: a migrated schema, one in-process server
for the session (with a hook between "yes" and "send"), extra servers and
service processes on demand, and the demo webhook app standing in for an
app. The SMTP stand-in is nodtest.mail (shared)."""

import pytest

from nod.approvals.v1 import approvals_pb2_grpc
from nod_approvals import MIGRATIONS
from nod_demo.webhook_app import start_webhook_app
from nodkit.client import open_channel
from nodtest.processes import ServiceProcess

from .support import (
    ApprovalsProcess,
    BeforeSendHooks,
    InProcessApprovals,
    RecordingApp,
    WebhookApp,
    approvals_process_env,
    approvals_settings,
    start_approvals,
)


@pytest.fixture(scope="session")
def approvals_migrated(database_url) -> str:
    MIGRATIONS.upgrade(database_url)
    return database_url


@pytest.fixture(scope="session")
def approvals_hooks() -> BeforeSendHooks:
    return BeforeSendHooks()


@pytest.fixture(scope="session")
async def approvals_server(
    approvals_migrated, service_token, vault_key, log_tee, approvals_hooks, smtp_tls_material
):
    """An approvals server for the whole session, SERVING."""
    settings = approvals_settings(
        approvals_migrated, service_token, vault_key, smtp_ca_file=str(smtp_tls_material.ca)
    )
    server = await start_approvals(settings, approvals_hooks)
    yield server
    await server.stop()


@pytest.fixture(scope="session")
async def strict_approvals(approvals_migrated, service_token, vault_key, log_tee):
    """A second server on the same database, as deployed: it allows no
    extra networks (NOD_APPROVALS_ALLOWED_NETWORKS empty), so loopback too
    is refused."""
    settings = approvals_settings(
        approvals_migrated,
        service_token,
        vault_key,
        instance_id="approvals-strict",
        allowed_networks="",
    )
    server = await start_approvals(settings)
    yield server
    await server.stop()


@pytest.fixture
async def recording_app():
    app = await RecordingApp().start()
    yield app
    await app.stop()


@pytest.fixture(scope="session")
def approvals_stub(approvals_server) -> approvals_pb2_grpc.ApprovalsServiceStub:
    return approvals_server.stub


@pytest.fixture
async def approvals_factory(approvals_migrated, service_token, vault_key, log_tee, approvals_hooks):
    """Starts extra in-process servers (own instance ids, own settings);
    each is stopped at the end of the test unless the test stopped it."""
    started: list[InProcessApprovals] = []

    async def start_one(instance_id: str, **overrides) -> InProcessApprovals:
        settings = approvals_settings(
            approvals_migrated, service_token, vault_key, instance_id=instance_id, **overrides
        )
        server = await start_approvals(settings, approvals_hooks)
        started.append(server)
        return server

    yield start_one
    for server in started:
        await server.stop()


@pytest.fixture
async def approvals_processes(approvals_migrated, service_env, tmp_path):
    """Makes `python -m nod_approvals serve` processes (started by the test);
    every one still running is killed at the end of the test."""
    made: list[ApprovalsProcess] = []

    def make(instance_id: str, **settings) -> ApprovalsProcess:
        env = approvals_process_env(service_env, instance_id=instance_id, **settings)
        address = env["NOD_APPROVALS_LISTEN"]
        process = ServiceProcess("nod_approvals", env, tmp_path / f"{instance_id}.log")
        channel = open_channel(address)
        stub = approvals_pb2_grpc.ApprovalsServiceStub(channel)
        made.append(ApprovalsProcess(process, address, channel, stub))
        return made[-1]

    yield make
    for server in made:
        server.process.stop()
        await server.channel.close()


@pytest.fixture
async def webhook_app():
    """The demo webhook app on a free port, fresh for each test."""
    runner, url, state = await start_webhook_app()
    yield WebhookApp(url, state)
    await runner.cleanup()
