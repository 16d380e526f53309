"""ClaimsService: proto <-> the claims use cases."""

from nod.claims.v1 import claims_pb2 as pb
from nod.claims.v1 import claims_pb2_grpc
from nod_claims.api.convert import (
    CHECKS,
    KINDS,
    STATES,
    binding_to_pb,
    claim_to_pb,
    event_to_pb,
)
from nod_claims.app.claims import Claims
from nod_claims.domain.bindings import CardBindingRequest
from nod_claims.domain.claims import ClaimRequest, ClaimState, OperationQuery
from nodkit import faults, listing, validation
from nodkit.identity import current_user
from nodkit.timestamps import to_proto


class ClaimsServicer(claims_pb2_grpc.ClaimsServiceServicer):
    def __init__(self, claims: Claims) -> None:
        self._claims = claims

    async def Claim(self, request: pb.ClaimRequest, context) -> pb.ClaimResponse:
        outcome = await self._claims.claim(
            current_user(),
            ClaimRequest(
                operation_id=request.operation_id,
                kind=KINDS.domain("kind", request.kind),
                item_id=request.item_id,
                origin=request.origin,
                task_id=request.task_id,
                holder=request.holder,
                companion_entry_id=validation.optional_uuid_id(
                    "companion_entry_id", request.companion_entry_id
                ),
                totp_code=request.totp_code,
                frame_origin=request.frame_origin or None,
                submit_origin=request.submit_origin or None,
            ),
        )
        reply = pb.ClaimResponse(
            granted=outcome.granted,
            claim=claim_to_pb(outcome.claim),
            secret_fields=outcome.secret_fields,
            bound_origins=outcome.bound_origins,
        )
        await faults.point("claims.reply_sending")
        return reply

    async def BindCardEntry(self, request, context) -> pb.BindCardEntryResponse:
        binding = await self._claims.bind_card_entry(
            current_user(),
            CardBindingRequest(
                operation_id=request.operation_id,
                item_id=request.item_id,
                task_id=request.task_id,
                merchant_origin=request.merchant_origin,
                hosted_payment_origins=tuple(request.hosted_payment_origins),
            ),
        )
        return pb.BindCardEntryResponse(binding=binding_to_pb(binding))

    async def MarkSubmitted(self, request, context) -> pb.MarkSubmittedResponse:
        record = await self._claims.finish(
            current_user(), request.claim_id, request.holder, ClaimState.SUBMITTED
        )
        return pb.MarkSubmittedResponse(claim=claim_to_pb(record))

    async def MarkUncertain(self, request, context) -> pb.MarkUncertainResponse:
        record = await self._claims.finish(
            current_user(), request.claim_id, request.holder, ClaimState.UNCERTAIN, request.reason
        )
        return pb.MarkUncertainResponse(claim=claim_to_pb(record))

    async def RecordCheck(self, request, context) -> pb.RecordCheckResponse:
        owner = current_user()
        check = CHECKS.domain("check", request.check)
        record = await self._claims.record_check(owner, request.claim_id, check)
        return pb.RecordCheckResponse(claim=claim_to_pb(record))

    async def GetClaim(self, request, context) -> pb.GetClaimResponse:
        record = await self._claims.get(current_user(), request.claim_id)
        return pb.GetClaimResponse(claim=claim_to_pb(record))

    async def FindClaim(self, request, context) -> pb.FindClaimResponse:
        record = await self._claims.find(
            current_user(),
            OperationQuery(
                operation_id=request.operation_id,
                kind=KINDS.domain("kind", request.kind),
                item_id=request.item_id,
                task_id=request.task_id,
                companion_entry_id=validation.optional_uuid_id(
                    "companion_entry_id", request.companion_entry_id
                ),
            ),
        )
        if record is None:
            return pb.FindClaimResponse(found=False)
        return pb.FindClaimResponse(found=True, claim=claim_to_pb(record))

    async def ListClaims(self, request, context) -> pb.ListClaimsResponse:
        page = await self._claims.list(
            current_user(),
            task_id=request.task_id or None,
            state=STATES.optional("state", request.state),
            page=listing.page_request(request.page_size, request.page_token),
        )
        return pb.ListClaimsResponse(
            claims=[claim_to_pb(r) for r in page.items], next_page_token=page.next_token
        )

    async def ListClaimEvents(self, request, context) -> pb.ListClaimEventsResponse:
        rows = await self._claims.events(current_user(), request.claim_id)
        return pb.ListClaimEventsResponse(events=[event_to_pb(row) for row in rows])

    async def RenewHolder(self, request, context) -> pb.RenewHolderResponse:
        lease = await self._claims.renew_holder(request.holder)
        return pb.RenewHolderResponse(
            lease_expires_at=to_proto(lease.lease_expires_at), running_claims=lease.running_claims
        )

    async def ReleaseHolder(self, request, context) -> pb.ReleaseHolderResponse:
        outcome = await self._claims.release_holder(request.holder, request.reason)
        return pb.ReleaseHolderResponse(
            released=len(outcome.released), lease_expires_at=to_proto(outcome.lease_expires_at)
        )
