"""Payments' calls to the claims service: binding a card entry to where the
card may go when it starts (BindCardEntry), and reading a claim as the
person it belongs to, to check the claim a card entry's end names. They go
through nodkit's Peer (payments' own token, the person, the request id, a
deadline never past the caller's); GetClaim is a read, so the channel may
retry it; BindCardEntry is never resent by the channel (a later start sends
it again, and the claims service answers the first binding)."""

import grpc
from pydantic import SecretStr

from nod.claims.v1 import claims_pb2 as pb
from nod.claims.v1 import claims_pb2_grpc
from nod_payments.domain.card_entry import CardClaim, CardEntryBinding, ClaimState
from nodkit.client import NodRpcError
from nodkit.enums import ProtoEnum
from nodkit.errors import FailedPrecondition, InvalidArgument, Unavailable
from nodkit.logging import get_logger
from nodkit.peers import Peer
from nodkit.tls import Tls

log = get_logger("nod_payments.claims_client")
STATES = ProtoEnum(pb.ClaimState, ClaimState)


def _state(number: int) -> ClaimState | None:
    try:
        return STATES.domain("state", number)
    except InvalidArgument:
        return None  # a state newer than this service: never taken for SUBMITTED


class ClaimsClient:
    def __init__(
        self, address: str, token: SecretStr | None, timeout_s: float, *, tls: Tls | None = None
    ) -> None:
        services = [pb.DESCRIPTOR.services_by_name["ClaimsService"]]
        self._peer = Peer(address, token, timeout_s, services, name="claims", tls=tls)
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

    async def bind_card_entry(self, owner: str, binding: CardEntryBinding) -> None:
        """Registered; FailedPrecondition when the card is no longer saved;
        else Unavailable: then the card can't be claimed under the operation
        unless an earlier call did bind it (to the same place), and the entry
        must not start."""
        request = pb.BindCardEntryRequest(
            operation_id=binding.operation_id,
            item_id=binding.item_id,
            task_id=binding.task_id,
            merchant_origin=binding.merchant_origin,
            hosted_payment_origins=binding.hosted_payment_origins,
        )
        try:
            await self._peer.call(self._stub.BindCardEntry, request, owner)
        except NodRpcError as error:
            log.warning("claims.bind_failed", status=error.code.name, reason=error.reason)
            if error.code == grpc.StatusCode.NOT_FOUND:
                raise FailedPrecondition(
                    "the card you said yes to is no longer saved; the card entry did not start",
                    reason="CARD_NOT_SAVED",
                ) from None
            raise Unavailable(
                "the card entry could not be bound to the shop with the claims service;"
                " it did not start and nothing was entered",
                reason="CLAIMS_UNAVAILABLE",
            ) from None

    async def close(self) -> None:
        await self._peer.close()
