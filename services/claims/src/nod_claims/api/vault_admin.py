"""VaultAdminService: the operator's re-seal, one reply per committed batch."""

from nod.claims.v1 import claims_pb2 as pb
from nod.claims.v1 import claims_pb2_grpc
from nodkit.resealing import Resealer, batch_size_of


class VaultAdminServicer(claims_pb2_grpc.VaultAdminServiceServicer):
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
