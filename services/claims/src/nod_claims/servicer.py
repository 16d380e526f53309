"""gRPC <-> domain translation only: each method checks the person, makes one
domain call and builds the reply."""

from nod.claims.v1 import claims_pb2 as pb
from nod.claims.v1 import claims_pb2_grpc
from nod_claims.claims_app import Claims
from nod_claims.domain import CheckResult, ClaimRecord, ClaimRequest, ClaimState, EntryKind
from nod_claims.vault import ItemInput
from nod_claims.vault_app import Vault
from nod_claims.vault_repository import StoredItem
from nodkit import pagination, validation
from nodkit.identity import current_user
from nodkit.timestamps import to_proto

KINDS = {
    pb.ENTRY_KIND_SAVED_LOGIN: EntryKind.SAVED_LOGIN,
    pb.ENTRY_KIND_ONE_TIME_CODE: EntryKind.ONE_TIME_CODE,
    pb.ENTRY_KIND_CARD: EntryKind.CARD,
    pb.ENTRY_KIND_TYPED_PASSWORD: EntryKind.TYPED_PASSWORD,
    pb.ENTRY_KIND_SECURITY_CODE: EntryKind.SECURITY_CODE,
}
STATES = {
    pb.CLAIM_STATE_RUNNING: ClaimState.RUNNING,
    pb.CLAIM_STATE_SUBMITTED: ClaimState.SUBMITTED,
    pb.CLAIM_STATE_UNCERTAIN: ClaimState.UNCERTAIN,
}
CHECKS = {
    pb.CHECK_RESULT_WORKED: CheckResult.WORKED,
    pb.CHECK_RESULT_DID_NOT_WORK: CheckResult.DID_NOT_WORK,
    pb.CHECK_RESULT_UNCLEAR: CheckResult.UNCLEAR,
}
KIND_TO_PB = {v: k for k, v in KINDS.items()}
STATE_TO_PB = {v: k for k, v in STATES.items()}
CHECK_TO_PB = {v: k for k, v in CHECKS.items()}


def claim_to_pb(record: ClaimRecord) -> pb.Claim:
    return pb.Claim(
        id=record.id,
        operation_id=record.operation_id,
        kind=KIND_TO_PB[record.kind],
        item_id=record.item_id,
        companion_entry_id=record.companion_entry_id or "",
        origin=record.origin,
        task_id=record.task_id,
        holder=record.holder,
        state=STATE_TO_PB[record.state],
        check=CHECK_TO_PB.get(record.check, pb.CHECK_RESULT_UNSPECIFIED),
        reason=record.reason,
        created_at=to_proto(record.created_at),
        updated_at=to_proto(record.updated_at),
    )


def item_to_pb(item: StoredItem) -> pb.VaultItem:
    return pb.VaultItem(
        id=item.id,
        kind=KIND_TO_PB[item.kind],
        label=item.label,
        origin=item.origin or "",
        fields=item.masked_fields,
        created_at=to_proto(item.created_at),
        updated_at=to_proto(item.updated_at),
    )


class ClaimsServicer(claims_pb2_grpc.ClaimsServiceServicer):
    def __init__(self, claims: Claims) -> None:
        self._claims = claims

    async def Claim(self, request: pb.ClaimRequest, context) -> pb.ClaimResponse:
        owner = current_user()
        outcome = await self._claims.claim(
            owner,
            ClaimRequest(
                operation_id=request.operation_id,
                kind=validation.enum_member("kind", request.kind, KINDS),
                item_id=request.item_id,
                origin=request.origin,
                task_id=request.task_id,
                holder=request.holder,
                companion_entry_id=validation.optional_uuid_id(
                    "companion_entry_id", request.companion_entry_id
                ),
            ),
        )
        return pb.ClaimResponse(
            granted=outcome.granted,
            claim=claim_to_pb(outcome.claim),
            secret_fields=outcome.secret_fields,
        )

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
        check = validation.enum_member("check", request.check, CHECKS)
        record = await self._claims.record_check(owner, request.claim_id, check)
        return pb.RecordCheckResponse(claim=claim_to_pb(record))

    async def GetClaim(self, request, context) -> pb.GetClaimResponse:
        record = await self._claims.get(current_user(), request.claim_id)
        return pb.GetClaimResponse(claim=claim_to_pb(record))

    async def ListClaims(self, request, context) -> pb.ListClaimsResponse:
        owner = current_user()
        limit = validation.page_size(request.page_size)
        records = await self._claims.list(
            owner,
            task_id=validation.printable_id("task_id", request.task_id)
            if request.task_id
            else None,
            state=validation.enum_member("state", request.state, STATES) if request.state else None,
            after=pagination.decode(request.page_token),
            limit=limit + 1,
        )
        records, token = pagination.page(records, limit)
        return pb.ListClaimsResponse(
            claims=[claim_to_pb(r) for r in records], next_page_token=token
        )

    async def ListClaimEvents(self, request, context) -> pb.ListClaimEventsResponse:
        rows = await self._claims.events(current_user(), request.claim_id)
        return pb.ListClaimEventsResponse(
            events=[
                pb.ClaimEvent(
                    claim_id=row.claim_id,
                    from_state=STATE_TO_PB.get(ClaimState(row.from_state)) if row.from_state else 0,
                    to_state=STATE_TO_PB[ClaimState(row.to_state)],
                    actor=row.actor,
                    reason=row.reason,
                    at=to_proto(row.at),
                )
                for row in rows
            ]
        )

    async def RenewHolder(self, request, context) -> pb.RenewHolderResponse:
        lease = await self._claims.renew_holder(request.holder)
        return pb.RenewHolderResponse(
            lease_expires_at=to_proto(lease.lease_expires_at), running_claims=lease.running_claims
        )

    async def ReleaseHolder(self, request, context) -> pb.ReleaseHolderResponse:
        outcome = await self._claims.release_holder(request.holder, request.reason)
        return pb.ReleaseHolderResponse(
            claims=[claim_to_pb(c) for c in outcome.released],
            lease_expires_at=to_proto(outcome.lease_expires_at),
        )


class VaultServicer(claims_pb2_grpc.VaultServiceServicer):
    def __init__(self, vault: Vault) -> None:
        self._vault = vault

    async def PutItem(self, request, context) -> pb.PutItemResponse:
        owner = current_user()
        item = request.item
        stored = await self._vault.put_item(
            owner,
            ItemInput(
                id=item.id or None,
                kind=validation.enum_member("item.kind", item.kind, KINDS),
                label=item.label,
                origin=item.origin or None,
                fields=dict(item.fields),
            ),
        )
        return pb.PutItemResponse(item=item_to_pb(stored))

    async def ListItems(self, request, context) -> pb.ListItemsResponse:
        owner = current_user()
        kind = validation.enum_member("kind", request.kind, KINDS) if request.kind else None
        items = await self._vault.list_items(owner, kind)
        return pb.ListItemsResponse(items=[item_to_pb(i) for i in items])

    async def DeleteItem(self, request, context) -> pb.DeleteItemResponse:
        await self._vault.delete_item(current_user(), request.item_id)
        return pb.DeleteItemResponse()

    async def PutPrivateEntry(self, request, context) -> pb.PutPrivateEntryResponse:
        owner = current_user()
        entry_id = await self._vault.put_private_entry(
            owner,
            request.task_id,
            validation.enum_member("kind", request.kind, KINDS),
            dict(request.fields),
        )
        return pb.PutPrivateEntryResponse(id=entry_id)

    async def DiscardPrivateEntries(self, request, context) -> pb.DiscardPrivateEntriesResponse:
        count = await self._vault.discard_private_entries(current_user(), request.task_id)
        return pb.DiscardPrivateEntriesResponse(discarded=count)
