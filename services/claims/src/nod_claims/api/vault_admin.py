"""VaultAdminService: the operator's re-seal, one reply per committed batch."""

from nod.claims.v1 import claims_pb2 as pb
from nod.claims.v1 import claims_pb2_grpc
from nod_claims.app.reseal import DEFAULT_BATCH, MAX_BATCH, Resealer
from nodkit.errors import InvalidArgument


class VaultAdminServicer(claims_pb2_grpc.VaultAdminServiceServicer):
    def __init__(self, resealer: Resealer) -> None:
        self._resealer = resealer

    async def Reseal(self, request: pb.ResealRequest, context):
        batch_size = request.batch_size or DEFAULT_BATCH
        if not 1 <= batch_size <= MAX_BATCH:
            raise InvalidArgument("batch_size", f"must be 1 to {MAX_BATCH} (0: {DEFAULT_BATCH})")
        async for progress in self._resealer.reseal(batch_size):
            yield pb.ResealResponse(
                table=progress.table,
                resealed=progress.resealed,
                already_current=progress.already_current,
                unreadable=progress.unreadable,
                table_done=progress.table_done,
                key_id=progress.key_id,
            )
