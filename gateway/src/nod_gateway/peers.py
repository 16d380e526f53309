"""The services the gateway calls, for one person at a time.

`nod.tasks.GetTask(request)` calls the tasks service with the gateway's own
token, the person in `x-nod-user`, this request's id and a deadline. Reads
(the methods each proto marks side-effect free) are retried by the channel's
service config when the peer is briefly unavailable; a call that changes
something never is. Any failure arrives as ServiceCallFailed, which knows
whether the change may have happened (web/errors.py says so to the person)."""

import uuid
from collections.abc import AsyncIterator
from typing import Any

import grpc
from google.protobuf.descriptor import ServiceDescriptor

from nod.approvals.v1 import approvals_pb2, approvals_pb2_grpc
from nod.claims.v1 import claims_pb2, claims_pb2_grpc
from nod.payments.v1 import payments_pb2, payments_pb2_grpc
from nod.tasks.v1 import tasks_pb2, tasks_pb2_grpc
from nod_gateway.settings import GatewaySettings
from nodkit import context
from nodkit.client import NodRpcError, call_metadata, open_channel
from nodkit.peers import changes_state, retry_reads_config

# How each peer is named to the person when it can't be reached.
LABELS = {
    "tasks": "the tasks service",
    "claims": "the vault (claims service)",
    "approvals": "the approvals service",
    "payments": "the payments service",
}

# Each stub's gRPC service, and the peer (channel) it is reached through.
_STUBS: dict[str, tuple[ServiceDescriptor, type, str]] = {
    "tasks": (
        tasks_pb2.DESCRIPTOR.services_by_name["TasksService"],
        tasks_pb2_grpc.TasksServiceStub,
        "tasks",
    ),
    "claims": (
        claims_pb2.DESCRIPTOR.services_by_name["ClaimsService"],
        claims_pb2_grpc.ClaimsServiceStub,
        "claims",
    ),
    "vault": (
        claims_pb2.DESCRIPTOR.services_by_name["VaultService"],
        claims_pb2_grpc.VaultServiceStub,
        "claims",
    ),
    "approvals": (
        approvals_pb2.DESCRIPTOR.services_by_name["ApprovalsService"],
        approvals_pb2_grpc.ApprovalsServiceStub,
        "approvals",
    ),
    "payments": (
        payments_pb2.DESCRIPTOR.services_by_name["PaymentsService"],
        payments_pb2_grpc.PaymentsServiceStub,
        "payments",
    ),
}


class ServiceCallFailed(Exception):
    def __init__(self, service: str, error: NodRpcError, changes: bool) -> None:
        self.service = service
        self.error = error
        self.changes = changes
        super().__init__(f"{service}: {error}")

    @property
    def label(self) -> str:
        return LABELS[self.service]


class Peers:
    """One channel per service, shared by every request."""

    def __init__(self, settings: GatewaySettings, caller: str = "gateway") -> None:
        """`caller`: who the services are told is calling (its token, its
        certificate); the operator's nodctl makes the same calls as itself."""
        self.token = settings.own_token(caller)
        self.timeout_s = settings.call_timeout_s
        self.watch_s = settings.watch_s
        addresses = {
            "tasks": settings.tasks_addr,
            "claims": settings.claims_addr,
            "approvals": settings.approvals_addr,
            "payments": settings.payments_addr,
        }
        # The caller presents its own certificate to every service.
        tls = settings.tls()
        if tls is not None:
            tls.check_names(caller)
        self.channels = {
            name: open_channel(
                address,
                service_config=retry_reads_config(
                    [descriptor for descriptor, _, peer in _STUBS.values() if peer == name]
                ),
                tls=tls,
                peer=name,
            )
            for name, address in addresses.items()
        }
        self.stubs: dict[str, Any] = {
            name: stub(self.channels[peer]) for name, (_, stub, peer) in _STUBS.items()
        }

    def for_person(self, person: str, name: str = "") -> "Nod":
        """person: their id; name: what they sign in with, for what is shown."""
        return Nod(self, person, name)

    async def close(self) -> None:
        for channel in self.channels.values():
            await channel.close(None)


class _Service:
    def __init__(self, nod: "Nod", stub_name: str) -> None:
        self._nod = nod
        self._stub = nod.peers.stubs[stub_name]
        self._descriptor, _, self._service = _STUBS[stub_name]

    def __getattr__(self, method: str):
        rpc = getattr(self._stub, method)
        changes = changes_state(self._descriptor, method)
        nod = self._nod

        async def call(request: Any) -> Any:
            try:
                return await rpc(request, metadata=nod.metadata(), timeout=nod.peers.timeout_s)
            except grpc.aio.AioRpcError as error:
                raise ServiceCallFailed(self._service, NodRpcError(error), changes) from None

        return call


class Nod:
    """The services, acting for one person."""

    def __init__(self, peers: Peers, person: str, name: str = "") -> None:
        self.peers = peers
        self.person = person  # their id: who the services know them as
        self.name = name or person
        self.tasks = _Service(self, "tasks")
        self.claims = _Service(self, "claims")
        self.vault = _Service(self, "vault")
        self.approvals = _Service(self, "approvals")
        self.payments = _Service(self, "payments")

    def metadata(self):
        request_id = context.request_id.get() or uuid.uuid4().hex
        return call_metadata(self.peers.token, self.person, request_id)

    async def watch_task(self, request: Any) -> AsyncIterator[Any]:
        """WatchTask's replies until the task ends or the watch's deadline
        passes (the browser then reconnects from its last event)."""
        stream = self.peers.stubs["tasks"].WatchTask(
            request, metadata=self.metadata(), timeout=self.peers.watch_s
        )
        try:
            async for reply in stream:
                yield reply
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.DEADLINE_EXCEEDED:
                raise ServiceCallFailed("tasks", NodRpcError(error), False) from None
        finally:
            stream.cancel()
