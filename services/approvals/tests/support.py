"""Builders for the approvals tests: settings, in-process servers and
service processes, stand-in apps, and the calls every suite makes."""

import asyncio
import signal
import uuid
from dataclasses import dataclass

import grpc
from aiohttp import web
from google.protobuf import struct_pb2

from nod.approvals.v1 import approvals_pb2 as pb
from nod.approvals.v1 import approvals_pb2_grpc
from nod_approvals.app.sending import Execution
from nod_approvals.settings import ApprovalsSettings
from nod_approvals.wiring import build
from nod_demo.webhook_app import WebhookState
from nodkit import service
from nodkit.client import open_channel
from nodtest.mail import CANARY_SMTP_PASSWORD, SMTP_USERNAME
from nodtest.processes import ServiceProcess, free_port, wait_until_serving

__all__ = ["CANARY_SMTP_PASSWORD", "CANARY_TOKEN"]

CANARY_TOKEN = "canary-hook-token-R7q2Zp"
SESSION_INSTANCE = "approvals-test"
# The stand-in apps listen on loopback, which no real deployment lets nod reach.
LOCAL_STAND_INS = "127.0.0.0/8"


def approvals_settings(database_url, service_token, vault_key, **overrides) -> ApprovalsSettings:
    values = {
        "instance_id": SESSION_INSTANCE,
        "sweep_interval_s": 0.5,
        "webhook_timeout_s": 3.0,
        "smtp_timeout_s": 6.0,
        "watch_poll_s": 0.2,
        "allowed_networks": LOCAL_STAND_INS,
        **overrides,
    }
    return ApprovalsSettings(
        database_url=database_url, service_token=service_token, vault_key=vault_key, **values
    )


class BeforeSendHooks:
    """The in-process servers' hook between "yes" and "send": a test sets a
    coroutine for one approval; every other execution passes straight on."""

    def __init__(self) -> None:
        self._hooks: dict[str, object] = {}

    def set(self, approval_id: str, hook) -> None:
        self._hooks[approval_id] = hook

    async def __call__(self, execution: Execution) -> None:
        hook = self._hooks.pop(execution.approval.id, None)
        if hook is not None:
            await hook(execution)


@dataclass
class InProcessApprovals:
    running: service.RunningService
    channel: grpc.aio.Channel
    stub: approvals_pb2_grpc.ApprovalsServiceStub

    @property
    def address(self) -> str:
        return self.running.address

    async def stop(self) -> None:
        await self.running.stop()
        await self.channel.close()


async def start_approvals(settings: ApprovalsSettings, hooks=None) -> InProcessApprovals:
    """Built by wiring.build and started the way `serve` starts it."""
    built = await build(settings, before_send=hooks)
    running = await service.start(built, settings, listen="127.0.0.1:0")
    channel = open_channel(running.address)
    return InProcessApprovals(running, channel, approvals_pb2_grpc.ApprovalsServiceStub(channel))


def approvals_process_env(service_env: dict, *, instance_id: str, **settings) -> dict[str, str]:
    """The environment of `python -m nod_approvals serve` on a free port."""
    env = {
        **service_env,
        "NOD_INSTANCE_ID": instance_id,
        "NOD_APPROVALS_LISTEN": f"127.0.0.1:{free_port()}",
        "NOD_MIGRATION_POLL_S": "0.2",
        "NOD_APPROVALS_ALLOWED_NETWORKS": LOCAL_STAND_INS,
    }
    env.update({f"NOD_APPROVALS_{name.upper()}": str(value) for name, value in settings.items()})
    return env


@dataclass
class ApprovalsProcess:
    process: ServiceProcess
    address: str
    channel: grpc.aio.Channel
    stub: approvals_pb2_grpc.ApprovalsServiceStub

    async def start(self) -> None:
        self.process.start()
        await wait_until_serving(self.address)

    def kill(self) -> None:
        self.process.kill(signal.SIGKILL)


@dataclass
class WebhookApp:
    """The demo webhook app, standing in for an app."""

    url: str
    state: WebhookState

    def hook_url(self, name: str = "orders") -> str:
        return f"{self.url}/hooks/{name}"


class RecordingApp:
    """A stand-in app that records who it was asked for (the Host header) and
    answers 200, or a redirect to `redirect_to` when that is set."""

    def __init__(self) -> None:
        self.received: list[dict] = []
        self.redirect_to: str | None = None
        self.url = ""
        self._runner: web.AppRunner | None = None

    async def _receive(self, request: web.Request) -> web.Response:
        self.received.append({"path": request.path, "host": request.headers.get("Host")})
        if self.redirect_to:
            raise web.HTTPTemporaryRedirect(self.redirect_to)
        return web.json_response({"ok": True})

    async def start(self) -> "RecordingApp":
        app = web.Application()
        app.router.add_post("/{tail:.*}", self._receive)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.url = f"http://127.0.0.1:{self._runner.addresses[0][1]}"
        return self

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()


TABLES = ("accounts", "approvals", "executions", "approval_events")


async def snapshot(db) -> dict:
    """Every row of the approvals schema, to show that a refusal changed nothing."""
    rows = {}
    for table in TABLES:
        cursor = await db.execute(
            f"SELECT row_to_json(t)::text FROM approvals.{table} t ORDER BY 1"
        )
        rows[table] = await cursor.fetchall()
    return rows


# The calls


def task() -> str:
    return f"task-{uuid.uuid4().hex[:10]}"


def struct(values: dict) -> struct_pb2.Struct:
    value = struct_pb2.Struct()
    value.update(values)
    return value


async def connect_webhook(stub, meta, url: str, *, token: str | None = CANARY_TOKEN) -> pb.Account:
    account = pb.Account(app="webhook", label="orders hook", settings={"url": url})
    if token:
        account.credentials["token"] = token
    reply = await stub.ConnectAccount(pb.ConnectAccountRequest(account=account), metadata=meta)
    return reply.account


async def connect_smtp(
    stub, meta, port: int, *, login: bool = False, host: str = "127.0.0.1"
) -> pb.Account:
    account = pb.Account(
        app="smtp",
        label="work mail",
        settings={"host": host, "port": str(port), "from": "ada@work.example"},
    )
    if login:
        account.credentials.update({"username": SMTP_USERNAME, "password": CANARY_SMTP_PASSWORD})
    reply = await stub.ConnectAccount(pb.ConnectAccountRequest(account=account), metadata=meta)
    return reply.account


def request_id() -> str:
    return f"request-{uuid.uuid4().hex[:12]}"


def proposal(account, parameters: dict, **fields) -> pb.ProposeRequest:
    """A ProposeRequest of its own (a fresh task and request id), unless `fields` say otherwise."""
    action = fields.get("action") or {"webhook": "post", "smtp": "send_email"}[account.app]
    values = {
        "task_id": task(),
        "account_id": account.id,
        "action": action,
        "parameters": struct(parameters),
        "summary": f"{action} with {account.label}",
        "request_id": request_id(),
    }
    values.update({name: value for name, value in fields.items() if value is not None})
    return pb.ProposeRequest(**values)


async def propose(stub, meta, account, parameters: dict, **fields) -> pb.Approval:
    request = proposal(account, parameters, **fields)
    return (await stub.Propose(request, metadata=meta)).approval


def email_parameters(**overrides) -> dict:
    return {
        "to": ["grace@example.com"],
        "subject": "Quarterly numbers",
        "body": "Hi Grace,\nthe numbers are attached.\nAda",
        **overrides,
    }


async def decide(stub, meta, approval_id: str, decision=pb.DECISION_YES, **kwargs):
    request = pb.DecideRequest(approval_id=approval_id, decision=decision)
    return (await stub.Decide(request, metadata=meta, **kwargs)).approval


async def get_approval(stub, meta, approval_id: str) -> pb.Approval:
    request = pb.GetApprovalRequest(approval_id=approval_id)
    return (await stub.GetApproval(request, metadata=meta)).approval


async def wait_for_approval(stub, meta, approval_id, predicate, timeout_s=15.0) -> pb.Approval:
    """Watches the approval until `predicate(approval)` holds (a deadline, not a sleep)."""
    request = pb.WatchApprovalRequest(approval_id=approval_id)
    last = None
    async with asyncio.timeout(timeout_s):
        async for reply in stub.WatchApproval(request, metadata=meta):
            last = reply.approval
            if predicate(last):
                return last
    raise AssertionError(f"the approval became final without matching: {last}")


async def poll_approval(stub, meta, approval_id, predicate, timeout_s=20.0) -> pb.Approval:
    """Reads the approval until `predicate(approval)` holds or the deadline
    passes (for servers that may restart under the test)."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    while True:
        try:
            approval = await get_approval(stub, meta, approval_id)
            if predicate(approval):
                return approval
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.UNAVAILABLE:
                raise
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"approval {approval_id} never matched in {timeout_s}s")
        await asyncio.sleep(0.1)
