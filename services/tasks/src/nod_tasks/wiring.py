"""Builds the tasks service from its settings: the database, the peers, the
model provider (OpenAI-compatible when NOD_MODEL_URL is set, else the
scripted planner), the worker, the use cases and their servicer; the boot
reconcile and the loops (lease, event notices, sweeper, queue, outside
waits, telling ended tasks' ends, pruning request ids). Nothing else constructs them."""

from nod.tasks.v1 import tasks_pb2, tasks_pb2_grpc
from nod_tasks import MIGRATIONS, SCHEMA, pruning
from nod_tasks.adapters.approvals import ApprovalsPeer
from nod_tasks.adapters.browser import BrowserPeer
from nod_tasks.adapters.claims import ClaimsPeer
from nod_tasks.adapters.models.openai import OpenAICompatible
from nod_tasks.adapters.models.scripted import ScriptedPlanner
from nod_tasks.adapters.payments import PaymentsPeer
from nod_tasks.adapters.peers import Peers
from nod_tasks.api.tasks import TasksServicer
from nod_tasks.app.endings import Endings
from nod_tasks.app.looks import Looks
from nod_tasks.app.replies import Replies
from nod_tasks.app.runs import RunDeps
from nod_tasks.app.stop import Stopper
from nod_tasks.app.tasks import Tasks
from nod_tasks.app.waits import OutsideWaits
from nod_tasks.app.worker import Worker
from nod_tasks.domain.model import ModelProvider
from nod_tasks.domain.tasks import TaskState
from nod_tasks.recovery import Recovery
from nod_tasks.settings import TasksSettings
from nod_tasks.store.database import Database
from nod_tasks.store.models import INSTANCE_LEASES
from nod_tasks.store.models import tasks as tasks_table
from nodkit.background import every
from nodkit.db import answers, create_engine, open_hot_path_pool
from nodkit.leases import OwnLease
from nodkit.metrics_collectors import DatabaseFigures, DatabasePools, Queue, StateCount
from nodkit.notices import Notices
from nodkit.service import GrpcService, Service

SERVICES = tasks_pb2.DESCRIPTOR.services_by_name
# The channel migration 0002's trigger announces a task's new events on, and
# the one the background loops wait on: a task queued or stopped (0004),
# queued and takeable, waiting on something outside, or its end to tell (0005).
EVENT_NOTICES = "nod_task_events"
QUEUE_NOTICES = "nod_task_queue"


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
        claims=ClaimsPeer(settings.claims_addr, token, timeout, tls=tls),
        approvals=ApprovalsPeer(settings.approvals_addr, token, timeout, tls=tls),
        payments=PaymentsPeer(settings.payments_addr, token, timeout, tls=tls),
        browser=BrowserPeer(
            settings.browser_addr,
            token,
            timeout,
            tls=tls,
            session_wait_s=settings.browser_session_wait_s,
        ),
    )


async def build(settings: TasksSettings, *, provider: ModelProvider | None = None) -> Service:
    """Tests may pass a model provider of their own making."""
    engine = create_engine(settings, SCHEMA)
    hot = await open_hot_path_pool(settings, SCHEMA, settings.max_running + 1)
    db = Database(engine, hot, settings.db_call_timeout_s)
    peers = peers_of(settings)
    provider = provider or model_provider(settings)
    lease = OwnLease(engine, INSTANCE_LEASES, settings.instance_id, settings.lease_ttl_s)
    recovery = Recovery(db, settings.instance_id)
    endings = Endings(
        db,
        peers,
        batch=settings.outside_waits_batch,
        instance_id=settings.instance_id,
        kept_sessions=settings.kept_sessions_per_person,
    )
    worker = Worker(
        RunDeps(db, peers, provider, settings, endings),
        recovery.reconcile_own,
        recovery.interrupt_lost_runs,
    )
    notices = Notices(settings, EVENT_NOTICES)
    queue = Notices(settings, QUEUE_NOTICES)
    servicer = TasksServicer(
        Tasks(db, notices, watch_poll_s=settings.watch_poll_s),
        Replies(db, peers),
        Stopper(db, endings, worker.interrupt),
        Looks(db, peers, timeout_s=settings.look_timeout_s),
    )
    outside_waits = OutsideWaits(
        db,
        peers,
        batch=settings.outside_waits_batch,
        instance_id=settings.instance_id,
        bank_wait_s=settings.bank_wait_s,
    )

    async def boot() -> None:
        await MIGRATIONS.wait_until_at_head(engine, settings.migration_poll_s)
        await lease.renew()
        await recovery.reconcile_own()
        await recovery.sweep_once()

    def loop(interval_s: float, work, event: str):
        return lambda: every(interval_s, work, event=event)

    async def close() -> None:
        await worker.shutdown()
        await peers.close()
        if hasattr(provider, "close"):
            await provider.close()
        await hot.close()
        await engine.dispose()

    return Service(
        name="tasks",
        grpc_services=[
            GrpcService(
                SERVICES["TasksService"],
                tasks_pb2_grpc.add_TasksServiceServicer_to_server,
                servicer,
            )
        ],
        boot=boot,
        background=[
            lease.keep_alive(),
            notices.run,
            queue.run,
            loop(settings.sweep_interval_s, recovery.sweep_once, "sweep"),
            lambda: pruning.prune_on_schedule(engine, settings),
            lambda: worker.run(queue, settings.poll_s),
            lambda: outside_waits.run(queue, settings.outside_waits_poll_s, settings.poll_s),
            lambda: endings.run(queue, settings.sweep_interval_s, settings.poll_s),
        ],
        probe=lambda: answers(engine),
        close=close,
        collectors=[
            DatabaseFigures(
                "tasks",
                engine,
                states=[StateCount("task", tasks_table, tuple(TaskState))],
                # Queued tasks are taken oldest `updated_at` first (the tasks_queued index).
                queues=[
                    Queue(
                        "tasks",
                        tasks_table,
                        tasks_table.c.state == TaskState.QUEUED.value,
                        tasks_table.c.updated_at,
                    )
                ],
            ),
            DatabasePools("tasks", engine, hot),
        ],
    )
