"""ApprovalsAdminService: the operator's re-seal of the apps' credentials,
one reply per committed batch."""

from nod.approvals.v1 import approvals_pb2 as pb
from nod.approvals.v1 import approvals_pb2_grpc
from nodkit.resealing import Resealer, batch_size_of


class ApprovalsAdminServicer(approvals_pb2_grpc.ApprovalsAdminServiceServicer):
    def __init__(self, resealer: Resealer) -> None:
        self._resealer = resealer

    async def Reseal(self, request: pb.ResealRequest, context):
        async for progress in self._resealer.reseal(batch_size_of(request.batch_size)):
            yield pb.ResealResponse(
                table=progress.table,
                resealed=progress.resealed,
                already_current=progress.already_current,
                unreadable=progress.unreadable,
                table_done=progress.table_done,
                key_id=progress.key_id,
            )
