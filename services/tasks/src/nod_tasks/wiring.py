"""Builds the tasks service from its settings: the engine, the peers, the
model provider (OpenAI-compatible when NOD_MODEL_URL is set, else the
scripted planner), the worker, the use cases and their servicer; the boot
reconcile and the loops (lease, event notices, sweeper, queue, outside
waits, stop clean-up). Nothing else constructs them."""

from nod.tasks.v1 import tasks_pb2, tasks_pb2_grpc
from nod_tasks import MIGRATIONS, SCHEMA
from nod_tasks.adapters.models.openai import OpenAICompatible
from nod_tasks.adapters.models.scripted import ScriptedPlanner
from nod_tasks.adapters.peers import Peer, Peers
from nod_tasks.api.tasks import TasksServicer
from nod_tasks.app.runs import RunDeps
from nod_tasks.app.stop import Stopper
from nod_tasks.app.tasks import Tasks
from nod_tasks.app.waits import OutsideWaits
from nod_tasks.app.worker import Worker
from nod_tasks.domain.model import ModelProvider
from nod_tasks.recovery import reconcile_own, sweep_once
from nod_tasks.settings import TasksSettings
from nod_tasks.store.models import INSTANCE_LEASES
from nodkit.background import every
from nodkit.db import answers, create_engine
from nodkit.leases import OwnLease
from nodkit.notices import Notices
from nodkit.service import GrpcService, Service

SERVICES = tasks_pb2.DESCRIPTOR.services_by_name
# The channel migration 0002's trigger announces a task's new events on.
EVENT_NOTICES = "nod_task_events"


def model_provider(settings: TasksSettings) -> ModelProvider:
    if not settings.model_url:
        return ScriptedPlanner()
    return OpenAICompatible(
        settings.model_url,
        settings.model_api_key,
        settings.model_name,
        timeout_s=settings.model_timeout_s,
    )


def peers_of(settings: TasksSettings) -> Peers:
    token, timeout, tls = settings.own_token("tasks"), settings.peer_timeout_s, settings.tls()
    return Peers(
        claims=Peer(settings.claims_addr, token, timeout, name="claims", tls=tls),
        approvals=Peer(settings.approvals_addr, token, timeout, name="approvals", tls=tls),
        payments=Peer(settings.payments_addr, token, timeout, name="payments", tls=tls),
        browser=Peer(settings.browser_addr, token, timeout, name="browser", tls=tls),
    )


async def build(settings: TasksSettings, *, provider: ModelProvider | None = None) -> Service:
    """Tests may pass a model provider of their own making."""
    engine = create_engine(settings, SCHEMA)
    peers = peers_of(settings)
    provider = provider or model_provider(settings)
    lease = OwnLease(engine, INSTANCE_LEASES, settings.instance_id, settings.lease_ttl_s)
    worker = Worker(engine, RunDeps(engine, peers, provider, settings))
    stopper = Stopper(engine, peers, worker.interrupt)
    notices = Notices(settings, EVENT_NOTICES)
    tasks = Tasks(engine, peers, notices, watch_poll_s=settings.watch_poll_s)
    outside_waits = OutsideWaits(engine, peers, batch=settings.outside_waits_batch)

    async def boot() -> None:
        await MIGRATIONS.wait_until_at_head(engine, settings.migration_poll_s)
        await lease.renew()
        await reconcile_own(engine, settings.instance_id)
        await sweep_once(engine)

    def loop(interval_s: float, work, event: str):
        return lambda: every(interval_s, work, event=event)

    async def close() -> None:
        await worker.shutdown()
        await peers.close()
        if hasattr(provider, "close"):
            await provider.close()
        await engine.dispose()

    return Service(
        name="tasks",
        grpc_services=[
            GrpcService(
                SERVICES["TasksService"],
                tasks_pb2_grpc.add_TasksServiceServicer_to_server,
                TasksServicer(tasks, stopper),
            )
        ],
        boot=boot,
        background=[
            lease.keep_alive(),
            notices.run,
            loop(settings.sweep_interval_s, lambda: sweep_once(engine), "sweep"),
            loop(settings.poll_s, worker.poll, "queue"),
            loop(settings.poll_s * 2, outside_waits.settle_round, "waits"),
            loop(settings.sweep_interval_s, stopper.retry_pending, "stop_cleanup"),
        ],
        probe=lambda: answers(engine),
        close=close,
    )
