"""nodctl vault reseal: every saved item and private entry (the claims
service's) and every connected app's credentials (the approvals
service's) re-sealed under the newest key in NOD_VAULT_KEY, so an older
key can be taken out of it (each service's admin Reseal, the operator's
alone). The claims service goes first, then the approvals service."""

from dataclasses import asdict, dataclass
from typing import Any

import grpc

from nod.approvals.v1 import approvals_pb2 as approvals
from nod.approvals.v1 import approvals_pb2_grpc
from nod.claims.v1 import claims_pb2 as claims
from nod.claims.v1 import claims_pb2_grpc
from nod_gateway.peers import ServiceCallFailed
from nodctl.output import emit, warn
from nodctl.parts import Parts
from nodkit.client import NodRpcError, call_metadata

COLUMNS = ("service", "table", "resealed", "already_current", "unreadable", "key_id")


@dataclass
class Totals:
    service: str
    table: str
    resealed: int
    already_current: int
    unreadable: int
    key_id: str


def _streams(parts: Parts, batch_size: int) -> list[tuple[str, Any]]:
    """Each service's re-seal, to be read in turn."""
    meta = call_metadata(parts.peers.token)
    vault = claims_pb2_grpc.VaultAdminServiceStub(parts.peers.channels["claims"])
    apps = approvals_pb2_grpc.ApprovalsAdminServiceStub(parts.peers.channels["approvals"])
    return [
        (
            "claims",
            lambda: vault.Reseal(claims.ResealRequest(batch_size=batch_size), metadata=meta),
        ),
        (
            "approvals",
            lambda: apps.Reseal(approvals.ResealRequest(batch_size=batch_size), metadata=meta),
        ),
    ]


async def reseal(parts: Parts, batch_size: int, *, as_json: bool, progress: bool) -> int:
    totals: list[Totals] = []
    for service, stream in _streams(parts, batch_size):
        try:
            async for reply in stream():
                if progress and not reply.table_done:
                    warn(f"{service} {reply.table}: {reply.resealed} resealed so far")
                if reply.table_done:
                    totals.append(
                        Totals(
                            service,
                            reply.table,
                            reply.resealed,
                            reply.already_current,
                            reply.unreadable,
                            reply.key_id,
                        )
                    )
        except grpc.aio.AioRpcError as error:
            # Each batch was committed as it went: running again goes on from there.
            raise ServiceCallFailed(service, NodRpcError(error), changes=True) from None
    emit([asdict(t) for t in totals], COLUMNS, as_json=as_json, empty="")
    unreadable = [t for t in totals if t.unreadable]
    if unreadable:
        where = ", ".join(f"{t.service} {t.table}" for t in unreadable)
        warn(
            f"{sum(t.unreadable for t in unreadable)} row(s) open under no key the service has"
            f" ({where}): they were left as they are; keep the key they were sealed with"
            " (see that service's log)"
        )
        return 1
    return 0
