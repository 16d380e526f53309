"""Fixtures and builders for the approvals service: a migrated schema,
in-process servers (with a hook between "yes" and "send"), the demo webhook
app and a local SMTP server standing in for the apps, and builders."""

import asyncio
import datetime
import email
import ipaddress
import pathlib
import signal
import ssl
import uuid
from dataclasses import dataclass, field

import grpc
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from google.protobuf import struct_pb2

from nod.approvals.v1 import approvals_pb2 as pb
from nod.approvals.v1 import approvals_pb2_grpc
from nodkit.client import open_channel
from nodkit.db import create_engine
from nodkit.migrations import upgrade_to_head
from nodtest.processes import ServiceProcess, free_port, wait_until_serving

CANARY_TOKEN = "canary-hook-token-R7q2Zp"
CANARY_SMTP_PASSWORD = "canary-smtp-pw-W4n8Kd"
SMTP_USERNAME = "nod-mailer"
SESSION_INSTANCE = "approvals-test"


@pytest.fixture(scope="session")
def approvals_migrated(database_url) -> str:
    from nod_approvals import MIGRATIONS_DIR, SCHEMA

    upgrade_to_head(MIGRATIONS_DIR, database_url, SCHEMA)
    return database_url


def approvals_settings(database_url, service_token, vault_key, **overrides):
    from nod_approvals.settings import ApprovalsSettings

    values = {
        "instance_id": SESSION_INSTANCE,
        "sweep_interval_s": 0.5,
        "webhook_timeout_s": 3.0,
        "smtp_timeout_s": 6.0,
        "watch_poll_s": 0.2,
        **overrides,
    }
    return ApprovalsSettings(
        database_url=database_url, service_token=service_token, vault_key=vault_key, **values
    )


class BeforeSendHooks:
    """The in-process servers' hook between "yes" and "send": a test sets a
    coroutine for one approval; every other execution passes straight on."""

    def __init__(self) -> None:
        self._hooks = {}

    def set(self, approval_id: str, hook) -> None:
        self._hooks[approval_id] = hook

    async def __call__(self, execution) -> None:
        hook = self._hooks.pop(execution.approval.id, None)
        if hook is not None:
            await hook(execution)


@pytest.fixture(scope="session")
def approvals_hooks() -> BeforeSendHooks:
    return BeforeSendHooks()


@dataclass
class InProcessApprovals:
    service: object  # nod_approvals.server.StartedService
    engine: object
    channel: object
    stub: approvals_pb2_grpc.ApprovalsServiceStub

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.service.port}"

    async def stop(self) -> None:
        await self.service.stop(0)
        await self.channel.close()
        await self.engine.dispose()


async def start_approvals(settings, hooks=None) -> InProcessApprovals:
    from nod_approvals import SCHEMA
    from nod_approvals.server import start

    engine = create_engine(settings, SCHEMA)
    service = await start(settings, engine, "127.0.0.1:0", before_send=hooks)
    channel = open_channel(f"127.0.0.1:{service.port}")
    stub = approvals_pb2_grpc.ApprovalsServiceStub(channel)
    return InProcessApprovals(service, engine, channel, stub)


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


def approvals_process_env(service_env: dict, *, instance_id: str, **settings) -> dict[str, str]:
    """The environment of `python -m nod_approvals serve` on a free port."""
    env = {
        **service_env,
        "NOD_INSTANCE_ID": instance_id,
        "NOD_APPROVALS_LISTEN": f"127.0.0.1:{free_port()}",
        "NOD_MIGRATION_POLL_S": "0.2",
    }
    env.update({f"NOD_APPROVALS_{name.upper()}": str(value) for name, value in settings.items()})
    return env


@dataclass
class ApprovalsProcess:
    process: ServiceProcess
    address: str
    channel: object
    stub: approvals_pb2_grpc.ApprovalsServiceStub

    async def start(self) -> None:
        self.process.start()
        await wait_until_serving(self.address)

    def kill(self) -> None:
        self.process.kill(signal.SIGKILL)


@pytest.fixture
async def approvals_processes(approvals_migrated, service_env, tmp_path):
    """Makes `python -m nod_approvals serve` processes (started by the test);
    every one still running is killed at the end of the test."""
    made: list[ApprovalsProcess] = []

    def make(instance_id: str, **settings) -> ApprovalsProcess:
        env = approvals_process_env(service_env, instance_id=instance_id, **settings)
        log_path = tmp_path / f"{instance_id}.log"
        address = env["NOD_APPROVALS_LISTEN"]
        channel = open_channel(address)
        stub = approvals_pb2_grpc.ApprovalsServiceStub(channel)
        made.append(
            ApprovalsProcess(ServiceProcess("nod_approvals", env, log_path), address, channel, stub)
        )
        return made[-1]

    yield make
    for server in made:
        server.process.stop()
        await server.channel.close()


# Stand-ins for the apps


@dataclass
class WebhookApp:
    url: str
    state: object  # nod_demo.webhook_app.WebhookState

    def hook_url(self, name: str = "orders") -> str:
        return f"{self.url}/hooks/{name}"


@pytest.fixture
async def webhook_app():
    """The demo webhook app on a free port, fresh for each test."""
    from nod_demo.webhook_app import start_webhook_app

    runner, url, state = await start_webhook_app()
    yield WebhookApp(url, state)
    await runner.cleanup()


@dataclass
class SmtpStandIn:
    """aiosmtpd handler that keeps every message it receives, including the
    ones it then refuses or drops, and answers DATA as `mode` says."""

    mode: str = "ok"  # ok | reject (554) | transient (451) | drop
    messages: list[dict] = field(default_factory=list)
    logins: list[tuple[str, bool]] = field(default_factory=list)

    async def handle_DATA(self, server, session, envelope):
        parsed = email.message_from_bytes(envelope.original_content or envelope.content)
        self.messages.append(
            {
                "from": envelope.mail_from,
                "to": list(envelope.rcpt_tos),
                "subject": parsed["Subject"],
                "message_id": parsed["Message-ID"],
                "body": parsed.get_payload(decode=True).decode(),
                "tls": session.ssl is not None,
            }
        )
        if self.mode == "reject":
            return "554 5.7.1 message refused by the test server"
        if self.mode == "transient":
            return "451 4.3.0 try again later"
        if self.mode == "drop":
            server.transport.close()
            return "250 never heard"
        return "250 2.0.0 queued as test-1"

    def authenticate(self, server, session, envelope, mechanism, auth_data):
        from aiosmtpd.smtp import AuthResult

        ok = auth_data.login.decode() == SMTP_USERNAME and (
            auth_data.password.decode() == CANARY_SMTP_PASSWORD
        )
        self.logins.append((auth_data.login.decode(), ok))
        return AuthResult(success=ok)


@dataclass
class SmtpServer:
    port: int
    handler: SmtpStandIn


def _smtp_controller(handler: SmtpStandIn, **options):
    from aiosmtpd.controller import Controller

    controller = Controller(handler, hostname="127.0.0.1", port=free_port(), **options)
    controller.start()
    return controller


@pytest.fixture
def smtp_server():
    """A plain local SMTP server (no STARTTLS, no AUTH)."""
    handler = SmtpStandIn()
    controller = _smtp_controller(handler)
    yield SmtpServer(controller.port, handler)
    controller.stop()


@dataclass(frozen=True)
class TlsMaterial:
    ca: pathlib.Path
    cert: pathlib.Path
    key: pathlib.Path

    def server_context(self) -> ssl.SSLContext:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(self.cert, self.key)
        return context


def _certificate(subject, issuer, public_key, signing_key, extensions):
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=2))
    )
    for extension, critical in extensions:
        builder = builder.add_extension(extension, critical=critical)
    return builder.sign(signing_key, hashes.SHA256())


def make_tls_material(directory: pathlib.Path, host: str) -> TlsMaterial:
    """A throwaway CA and a server certificate for `host` (an IP address)."""
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "nod test CA")])
    ca_usage = x509.KeyUsage(False, False, False, False, False, True, True, False, False)
    ca = _certificate(
        ca_name,
        ca_name,
        ca_key.public_key(),
        ca_key,
        [
            (x509.BasicConstraints(ca=True, path_length=0), True),
            (ca_usage, True),
            (x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), False),
        ],
    )
    cert = _certificate(
        x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host)]),
        ca_name,
        key.public_key(),
        ca_key,
        [
            (x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(host))]), False),
            (x509.BasicConstraints(ca=False, path_length=None), True),
            (x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), False),
            (x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), False),
        ],
    )
    material = TlsMaterial(directory / "ca.pem", directory / "cert.pem", directory / "key.pem")
    material.ca.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    material.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    material.key.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return material


@pytest.fixture(scope="session")
def smtp_tls_material(tmp_path_factory) -> TlsMaterial:
    return make_tls_material(tmp_path_factory.mktemp("smtp-tls"), "127.0.0.1")


@pytest.fixture
def smtp_tls_server(smtp_tls_material):
    """A local SMTP server that offers STARTTLS (a test CA's certificate the
    session's approvals server trusts) and AUTH only over TLS."""
    handler = SmtpStandIn()
    controller = _smtp_controller(
        handler,
        tls_context=smtp_tls_material.server_context(),
        require_starttls=True,
        authenticator=handler.authenticate,
        auth_require_tls=True,
    )
    yield SmtpServer(controller.port, handler)
    controller.stop()


# Builders


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


async def connect_smtp(stub, meta, port: int, *, login: bool = False) -> pb.Account:
    account = pb.Account(
        app="smtp",
        label="work mail",
        settings={"host": "127.0.0.1", "port": str(port), "from": "ada@work.example"},
    )
    if login:
        account.credentials.update({"username": SMTP_USERNAME, "password": CANARY_SMTP_PASSWORD})
    reply = await stub.ConnectAccount(pb.ConnectAccountRequest(account=account), metadata=meta)
    return reply.account


async def propose(stub, meta, account, parameters: dict, *, task_id=None, action=None):
    action = action or {"webhook": "post", "smtp": "send_email"}[account.app]
    request = pb.ProposeRequest(
        task_id=task_id or task(),
        account_id=account.id,
        action=action,
        parameters=struct(parameters),
        summary=f"{action} with {account.label}",
    )
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
