"""Builders for the claims tests: live holders and claim requests (the saved
items come from nodtest.claims, shared with other suites)."""

import uuid

from nod.claims.v1 import claims_pb2 as pb
from nodtest.claims import ORIGIN, op_id


async def live_holder(claims_stub, meta) -> str:
    holder = f"runner-{uuid.uuid4().hex[:8]}"
    await claims_stub.RenewHolder(pb.RenewHolderRequest(holder=holder), metadata=meta)
    return holder


def claim_request(item, holder, *, operation_id=None, task_id="task-1", origin=ORIGIN, kind=None):
    return pb.ClaimRequest(
        operation_id=operation_id or op_id(),
        kind=kind or item.kind,
        item_id=item.id,
        origin=origin,
        task_id=task_id,
        holder=holder,
    )
