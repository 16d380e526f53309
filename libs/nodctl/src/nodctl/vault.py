"""nodctl vault reseal: every saved item and private entry re-sealed under
the newest key in the claims service's NOD_VAULT_KEY, so an older key can
be taken out of it (VaultAdminService/Reseal, the operator's alone)."""

from dataclasses import asdict, dataclass

import grpc

from nod.claims.v1 import claims_pb2 as claims
from nod.claims.v1 import claims_pb2_grpc
from nod_gateway.peers import ServiceCallFailed
from nodctl.output import emit, warn
from nodctl.parts import Parts
from nodkit.client import NodRpcError, call_metadata

COLUMNS = ("table", "resealed", "already_current", "unreadable", "key_id")


@dataclass
class Totals:
    table: str
    resealed: int
    already_current: int
    unreadable: int
    key_id: str


async def reseal(parts: Parts, batch_size: int, *, as_json: bool, progress: bool) -> int:
    stub = claims_pb2_grpc.VaultAdminServiceStub(parts.peers.channels["claims"])
    stream = stub.Reseal(
        claims.ResealRequest(batch_size=batch_size), metadata=call_metadata(parts.peers.token)
    )
    totals: list[Totals] = []
    try:
        async for reply in stream:
            if progress and not reply.table_done:
                warn(f"{reply.table}: {reply.resealed} resealed so far")
            if reply.table_done:
                totals.append(
                    Totals(
                        reply.table,
                        reply.resealed,
                        reply.already_current,
                        reply.unreadable,
                        reply.key_id,
                    )
                )
    except grpc.aio.AioRpcError as error:
        # Each batch was committed as it went: running again goes on from there.
        raise ServiceCallFailed("claims", NodRpcError(error), changes=True) from None
    emit([asdict(t) for t in totals], COLUMNS, as_json=as_json, empty="")
    unreadable = sum(t.unreadable for t in totals)
    if unreadable:
        warn(
            f"{unreadable} row(s) open under no key the claims service has: they were left as"
            " they are; keep the key they were sealed with (see the claims service's log)"
        )
        return 1
    return 0
