"""Claims and vault items as proto messages, and the enums both ways."""

import sqlalchemy as sa

from nod.claims.v1 import claims_pb2 as pb
from nod_claims.domain.bindings import CardBinding
from nod_claims.domain.claims import CheckResult, ClaimRecord, ClaimState, EntryKind
from nod_claims.domain.vault import StoredItem
from nodkit.enums import ProtoEnum
from nodkit.timestamps import to_proto

KINDS = ProtoEnum(pb.EntryKind, EntryKind)
STATES = ProtoEnum(pb.ClaimState, ClaimState)
CHECKS = ProtoEnum(pb.CheckResult, CheckResult)


def claim_to_pb(record: ClaimRecord) -> pb.Claim:
    return pb.Claim(
        id=record.id,
        operation_id=record.operation_id,
        kind=KINDS.proto(record.kind),
        item_id=record.item_id,
        companion_entry_id=record.companion_entry_id or "",
        origin=record.origin,
        frame_origin=record.frame_origin,
        submit_origin=record.submit_origin or "",
        task_id=record.task_id,
        holder=record.holder,
        state=STATES.proto(record.state),
        check=CHECKS.proto(record.check),
        reason=record.reason,
        created_at=to_proto(record.created_at),
        updated_at=to_proto(record.updated_at),
    )


def event_to_pb(row: sa.Row) -> pb.ClaimEvent:
    return pb.ClaimEvent(
        claim_id=row.claim_id,
        from_state=STATES.proto(ClaimState(row.from_state) if row.from_state else None),
        to_state=STATES.proto(ClaimState(row.to_state)),
        actor=row.actor,
        reason=row.reason,
        at=to_proto(row.at),
    )


def item_to_pb(item: StoredItem) -> pb.VaultItem:
    return pb.VaultItem(
        id=item.id,
        kind=KINDS.proto(item.kind),
        label=item.label,
        origin=item.origin or "",
        equivalent_origins=item.equivalent_origins,
        fields=item.masked_fields,
        created_at=to_proto(item.created_at),
        updated_at=to_proto(item.updated_at),
    )


def binding_to_pb(binding: CardBinding) -> pb.CardBinding:
    return pb.CardBinding(
        operation_id=binding.operation_id,
        item_id=binding.item_id,
        task_id=binding.task_id,
        merchant_origin=binding.merchant_origin,
        hosted_payment_origins=binding.hosted_payment_origins,
        created_at=to_proto(binding.created_at),
    )
