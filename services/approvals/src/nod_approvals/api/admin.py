"""ApprovalsAdminService: the operator's re-seal of the apps' credentials,
one reply per committed batch."""

from nod.approvals.v1 import approvals_pb2 as pb
from nod.approvals.v1 import approvals_pb2_grpc
from nodkit.resealing import Resealer, replies


class ApprovalsAdminServicer(approvals_pb2_grpc.ApprovalsAdminServiceServicer):
    def __init__(self, resealer: Resealer) -> None:
        self._resealer = resealer

    async def Reseal(self, request: pb.ResealRequest, context):
        async for reply in replies(self._resealer, request.batch_size, pb.ResealResponse):
            yield reply
