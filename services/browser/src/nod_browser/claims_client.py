"""The runner's calls to the claims service: the service token and the person
in metadata, a deadline on every call, and no automatic retry of a call that
changes state (only reads are retried, by the channel's service config)."""

import grpc
from pydantic import SecretStr

from nod.claims.v1 import claims_pb2 as pb
from nod.claims.v1 import claims_pb2_grpc
from nod_browser.domain import EntryKind, EntryRequest
from nodkit import context
from nodkit.client import NodRpcError, call_metadata, open_channel, read_only_retry_config

SERVICE = pb.DESCRIPTOR.services_by_name["ClaimsService"].full_name
KIND_TO_PB = {
    EntryKind.SAVED_LOGIN: pb.ENTRY_KIND_SAVED_LOGIN,
    EntryKind.ONE_TIME_CODE: pb.ENTRY_KIND_ONE_TIME_CODE,
    EntryKind.CARD: pb.ENTRY_KIND_CARD,
    EntryKind.TYPED_PASSWORD: pb.ENTRY_KIND_TYPED_PASSWORD,
    EntryKind.SECURITY_CODE: pb.ENTRY_KIND_SECURITY_CODE,
}
LIST_PAGES = 5


class ClaimsClient:
    def __init__(self, address: str, token: SecretStr, holder: str, timeout_s: float) -> None:
        self.holder = holder
        self._token = token
        self._timeout_s = timeout_s
        retry = read_only_retry_config([SERVICE], ["GetClaim", "ListClaims"])
        self._channel = open_channel(address, service_config=retry)
        self._stub = claims_pb2_grpc.ClaimsServiceStub(self._channel)

    async def _call(self, method, request, user: str | None):
        metadata = call_metadata(self._token, user, context.request_id.get())
        try:
            return await method(request, metadata=metadata, timeout=self._timeout_s)
        except grpc.aio.AioRpcError as error:
            raise NodRpcError(error) from None

    async def claim(self, owner: str, request: EntryRequest, origin: str, task_id: str):
        """The reply carries the private value when granted; callers drop it after one use."""
        message = pb.ClaimRequest(
            operation_id=request.operation_id,
            kind=KIND_TO_PB[request.kind],
            item_id=request.item_id,
            origin=origin,
            task_id=task_id,
            holder=self.holder,
            companion_entry_id=request.companion_entry_id or "",
        )
        return await self._call(self._stub.Claim, message, owner)

    async def mark_submitted(self, owner: str, claim_id: str) -> pb.Claim:
        request = pb.MarkSubmittedRequest(claim_id=claim_id, holder=self.holder)
        return (await self._call(self._stub.MarkSubmitted, request, owner)).claim

    async def mark_uncertain(self, owner: str, claim_id: str, reason: str) -> pb.Claim:
        request = pb.MarkUncertainRequest(claim_id=claim_id, holder=self.holder, reason=reason)
        return (await self._call(self._stub.MarkUncertain, request, owner)).claim

    async def find(self, owner: str, task_id: str, operation_id: str, state=0) -> pb.Claim | None:
        """The task's claim for an operation, if there is one (a read)."""
        token = ""
        for _ in range(LIST_PAGES):
            request = pb.ListClaimsRequest(
                task_id=task_id, state=state, page_size=200, page_token=token
            )
            reply = await self._call(self._stub.ListClaims, request, owner)
            for claim in reply.claims:
                if claim.operation_id == operation_id:
                    return claim
            token = reply.next_page_token
            if not token:
                return None
        return None

    async def release_holder(self, reason: str) -> int:
        """How many of this runner's claims ended UNCERTAIN."""
        request = pb.ReleaseHolderRequest(holder=self.holder, reason=reason)
        return (await self._call(self._stub.ReleaseHolder, request, None)).released

    async def renew_holder(self) -> None:
        await self._call(self._stub.RenewHolder, pb.RenewHolderRequest(holder=self.holder), None)

    async def close(self) -> None:
        await self._channel.close()
