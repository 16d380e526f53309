"""Payments' one call to the claims service: reading a claim as the person
it belongs to, to check the claim a card entry's end names. It presents
payments' own token, carries the person (x-nod-user) and the request id,
and has a deadline (never past the caller's). GetClaim is a read, so the
channel's service config may retry it; nothing here changes state."""

import asyncio

import grpc
from pydantic import SecretStr

from nod.claims.v1 import claims_pb2 as pb
from nod.claims.v1 import claims_pb2_grpc
from nod_payments.domain.card_entry import CardClaim, ClaimState
from nodkit import context
from nodkit.client import NodRpcError, call_metadata, open_channel, read_only_retry_config
from nodkit.enums import ProtoEnum
from nodkit.errors import InvalidArgument, Unavailable
from nodkit.logging import get_logger
from nodkit.tls import Tls

log = get_logger("nod_payments.claims_client")
SERVICE = pb.DESCRIPTOR.services_by_name["ClaimsService"].full_name
STATES = ProtoEnum(pb.ClaimState, ClaimState)
# The smallest deadline worth sending when the caller's is nearly spent.
MIN_TIMEOUT_S = 0.05


def _state(number: int) -> ClaimState | None:
    try:
        return STATES.domain("state", number)
    except InvalidArgument:
        return None  # a state newer than this service: never taken for SUBMITTED


class ClaimsClient:
    def __init__(
        self, address: str, token: SecretStr | None, timeout_s: float, *, tls: Tls | None = None
    ) -> None:
        self._token = token
        self._timeout_s = timeout_s
        retry = read_only_retry_config([SERVICE], ["GetClaim"])
        self._channel = open_channel(address, service_config=retry, tls=tls, peer="claims")
        self._stub = claims_pb2_grpc.ClaimsServiceStub(self._channel)

    def _timeout(self) -> float:
        caller_deadline = context.deadline.get()
        if caller_deadline is None:
            return self._timeout_s
        left = caller_deadline - asyncio.get_running_loop().time()
        return max(MIN_TIMEOUT_S, min(self._timeout_s, left))

    async def get_claim(self, owner: str, claim_id: str) -> CardClaim | None:
        """The person's claim, or None when they have none with that id."""
        metadata = call_metadata(self._token, owner, context.request_id.get())
        try:
            reply = await self._stub.GetClaim(
                pb.GetClaimRequest(claim_id=claim_id), metadata=metadata, timeout=self._timeout()
            )
        except grpc.aio.AioRpcError as raw:
            error = NodRpcError(raw)
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
        await self._channel.close(grace=None)
