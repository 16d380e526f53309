"""Builds the service's parts once, from its settings, and the gRPC service
definition that serves them."""

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncEngine

from nod.approvals.v1 import approvals_pb2, approvals_pb2_grpc
from nod_approvals.accounts_app import Accounts
from nod_approvals.approvals_app import Approvals
from nod_approvals.changes import ChangeFeed
from nod_approvals.connectors import build_connectors
from nod_approvals.decisions_app import Decisions
from nod_approvals.execution import BeforeSend, Executor
from nod_approvals.models import instance_leases
from nod_approvals.proposals_app import Proposals
from nod_approvals.servicer import ApprovalsServicer
from nod_approvals.settings import ApprovalsSettings
from nodkit.crypto import Sealer
from nodkit.instances import InstanceLease
from nodkit.server import ServiceDefinition

GRPC_SERVICES = [approvals_pb2.DESCRIPTOR.services_by_name["ApprovalsService"].full_name]


@dataclass(frozen=True)
class Parts:
    servicer: ApprovalsServicer
    executor: Executor
    feed: ChangeFeed
    lease: InstanceLease


def build(
    settings: ApprovalsSettings, engine: AsyncEngine, *, before_send: BeforeSend | None = None
) -> Parts:
    connectors = build_connectors(settings)
    feed = ChangeFeed()
    accounts = Accounts(engine, Sealer(settings.vault_key.get_secret_value()), connectors)
    executor = Executor(
        engine,
        accounts,
        connectors,
        feed,
        instance_id=settings.instance_id,
        before_send=before_send,
    )
    servicer = ApprovalsServicer(
        accounts,
        Proposals(engine, connectors, ttl_s=settings.approval_ttl_s),
        Decisions(engine, executor, feed),
        Approvals(engine, feed, watch_poll_s=settings.watch_poll_s),
    )
    lease = InstanceLease(engine, instance_leases, settings.instance_id, settings.lease_ttl_s)
    return Parts(servicer, executor, feed, lease)


def definition(parts: Parts) -> ServiceDefinition:
    def register(server) -> None:
        approvals_pb2_grpc.add_ApprovalsServiceServicer_to_server(parts.servicer, server)

    return ServiceDefinition("approvals", GRPC_SERVICES, register)
