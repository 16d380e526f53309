"""Payments' one call to the claims service: reading a claim as the person
it belongs to, to check the claim a card entry's end names. It goes through
nodkit's Peer (payments' own token, the person, the request id, a deadline
never past the caller's); GetClaim is a read, so the channel may retry it;
nothing here changes state."""

import grpc
from pydantic import SecretStr

from nod.claims.v1 import claims_pb2 as pb
from nod.claims.v1 import claims_pb2_grpc
from nod_payments.domain.card_entry import CardClaim, ClaimState
from nodkit.client import NodRpcError
from nodkit.enums import ProtoEnum
from nodkit.errors import InvalidArgument, Unavailable
from nodkit.logging import get_logger
from nodkit.peers import Peer

log = get_logger("nod_payments.claims_client")
STATES = ProtoEnum(pb.ClaimState, ClaimState)


def _state(number: int) -> ClaimState | None:
    try:
        return STATES.domain("state", number)
    except InvalidArgument:
        return None  # a state newer than this service: never taken for SUBMITTED


class ClaimsClient:
    def __init__(self, address: str, token: SecretStr, timeout_s: float) -> None:
        self._peer = Peer(
            address, token, timeout_s, [pb.DESCRIPTOR.services_by_name["ClaimsService"]]
        )
        self._stub = self._peer.stub(claims_pb2_grpc.ClaimsServiceStub)

    async def get_claim(self, owner: str, claim_id: str) -> CardClaim | None:
        """The person's claim, or None when they have none with that id."""
        try:
            reply = await self._peer.call(
                self._stub.GetClaim, pb.GetClaimRequest(claim_id=claim_id), owner
            )
        except NodRpcError as error:
            if error.code == grpc.StatusCode.NOT_FOUND:
                return None
            log.warning("claims.get_claim_failed", status=error.code.name, reason=error.reason)
            raise Unavailable(
                "the claim could not be checked with the claims service; nothing was recorded",
                reason="CLAIMS_UNAVAILABLE",
            ) from None
        claim = reply.claim
        return CardClaim(
            id=claim.id,
            operation_id=claim.operation_id,
            kind=pb.EntryKind.Name(claim.kind).removeprefix("ENTRY_KIND_").lower(),
            item_id=claim.item_id,
            state=_state(claim.state),
        )

    async def close(self) -> None:
        await self._peer.close()
