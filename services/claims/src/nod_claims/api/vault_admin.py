"""VaultAdminService: the operator's re-seal, one reply per committed batch."""

from nod.claims.v1 import claims_pb2 as pb
from nod.claims.v1 import claims_pb2_grpc
from nodkit.resealing import Resealer, replies


class VaultAdminServicer(claims_pb2_grpc.VaultAdminServiceServicer):
    def __init__(self, resealer: Resealer) -> None:
        self._resealer = resealer

    async def Reseal(self, request: pb.ResealRequest, context):
        async for reply in replies(self._resealer, request.batch_size, pb.ResealResponse):
            yield reply
