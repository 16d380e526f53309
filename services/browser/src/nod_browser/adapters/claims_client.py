"""The runner's calls to the claims service, through nodkit's Peer: the
service token and the person in metadata, a deadline on every call, and no
automatic retry of a call that changes state (only the reads the contract
marks side-effect free are retried, by the channel's service config)."""

from pydantic import SecretStr

from nod.claims.v1 import claims_pb2 as pb
from nod.claims.v1 import claims_pb2_grpc
from nod_browser.domain.addresses import Destination
from nod_browser.domain.entry import EntryKind, EntryRequest
from nodkit.enums import ProtoEnum
from nodkit.peers import Peer
from nodkit.tls import Tls

# The kinds are the claims contract's; this is the one table, derived by name.
KINDS = ProtoEnum(pb.EntryKind, EntryKind)


class ClaimsClient:
    def __init__(
        self,
        address: str,
        token: SecretStr | None,
        holder: str,
        timeout_s: float,
        *,
        tls: Tls | None = None,
    ) -> None:
        self.holder = holder
        # A claim's end goes out in full even when EnterPrivate's caller has gone.
        self._peer = Peer(
            address,
            token,
            timeout_s,
            [pb.DESCRIPTOR.services_by_name["ClaimsService"]],
            name="claims",
            tls=tls,
            within_caller_deadline=False,
        )
        self._stub = self._peer.stub(claims_pb2_grpc.ClaimsServiceStub)

    async def _call(self, method, request, user: str | None):
        return await self._peer.call(method, request, user)

    async def claim(
        self, owner: str, request: EntryRequest, destination: Destination, task_id: str
    ) -> pb.ClaimResponse:
        """The reply carries the private value when granted, and the origins
        it may be sent to (bound_origins); callers drop the value after one use."""
        message = pb.ClaimRequest(
            operation_id=request.operation_id,
            kind=KINDS.proto(request.kind),
            item_id=request.item_id,
            origin=destination.origin,
            frame_origin=destination.frame_origin,
            submit_origin=destination.submit_origin or "",
            task_id=task_id,
            holder=self.holder,
            companion_entry_id=request.companion_entry_id or "",
            # The claims service gives the code (for a time step of its own), never the seed.
            totp_code="totp_code" in request.fields,
        )
        return await self._call(self._stub.Claim, message, owner)

    async def mark_submitted(self, owner: str, claim_id: str) -> pb.Claim:
        request = pb.MarkSubmittedRequest(claim_id=claim_id, holder=self.holder)
        return (await self._call(self._stub.MarkSubmitted, request, owner)).claim

    async def mark_uncertain(self, owner: str, claim_id: str, reason: str) -> pb.Claim:
        request = pb.MarkUncertainRequest(claim_id=claim_id, holder=self.holder, reason=reason)
        return (await self._call(self._stub.MarkUncertain, request, owner)).claim

    async def find(self, owner: str, request: EntryRequest, task_id: str) -> pb.Claim | None:
        """The operation's claim, if it was claimed (a read). The claims
        service applies the operation-id reuse rule: a claim of the id for
        another entry is refused (ALREADY_EXISTS, OPERATION_ID_REUSED)."""
        message = pb.FindClaimRequest(
            operation_id=request.operation_id,
            kind=KINDS.proto(request.kind),
            item_id=request.item_id,
            task_id=task_id,
            companion_entry_id=request.companion_entry_id or "",
        )
        reply = await self._call(self._stub.FindClaim, message, owner)
        return reply.claim if reply.found else None

    async def release_holder(self, reason: str) -> int:
        """How many of this runner's claims ended UNCERTAIN."""
        request = pb.ReleaseHolderRequest(holder=self.holder, reason=reason)
        return (await self._call(self._stub.ReleaseHolder, request, None)).released

    async def renew_holder(self) -> None:
        await self._call(self._stub.RenewHolder, pb.RenewHolderRequest(holder=self.holder), None)

    async def close(self) -> None:
        await self._peer.close()
