"""Domain records <-> protobuf messages, and the enums both ways."""

import sqlalchemy as sa
from google.protobuf import struct_pb2

from nod.approvals.v1 import approvals_pb2 as pb
from nod_approvals.domain.accounts import AccountRecord
from nod_approvals.domain.approvals import (
    ApprovalRecord,
    ApprovalState,
    Decision,
    EarlierRecord,
    ExecutionState,
    shown_reason,
)
from nodkit.enums import ProtoEnum
from nodkit.timestamps import to_proto

DECISIONS = ProtoEnum(pb.Decision, Decision)
APPROVAL_STATES = ProtoEnum(pb.ApprovalState, ApprovalState)
EXECUTION_STATES = ProtoEnum(pb.ExecutionState, ExecutionState)


def struct_to_dict(value):
    """Plain Python values, NaN and all: the domain refuses bad numbers by
    field name (json_format would fail without saying where)."""
    if isinstance(value, struct_pb2.Struct):
        return {key: struct_to_dict(item) for key, item in value.items()}
    if isinstance(value, struct_pb2.ListValue):
        return [struct_to_dict(item) for item in value]
    return value


def dict_to_struct(values: dict) -> struct_pb2.Struct:
    struct = struct_pb2.Struct()
    struct.update(values)
    return struct


def account_to_pb(record: AccountRecord) -> pb.Account:
    return pb.Account(
        id=record.id,
        app=record.app,
        label=record.label,
        settings=record.settings,
        credentials=record.masked_credentials,
        connected=record.connected,
        created_at=to_proto(record.created_at),
        disconnected_at=to_proto(record.disconnected_at),
    )


def approval_to_pb(record: ApprovalRecord) -> pb.Approval:
    execution = record.execution
    return pb.Approval(
        id=record.id,
        task_id=record.task_id,
        account_id=record.account_id,
        app=record.app,
        action=record.action,
        parameters=dict_to_struct(record.parameters),
        summary=record.summary,
        state=APPROVAL_STATES.proto(record.state),
        digest=record.digest,
        saved_action=record.saved_action,
        execution_id=execution.id if execution else "",
        execution_state=EXECUTION_STATES.proto(execution.state if execution else None),
        result=execution.result if execution else "",
        reason=shown_reason(record.reason, execution),
        created_at=to_proto(record.created_at),
        expires_at=to_proto(record.expires_at),
        decided_at=to_proto(record.decided_at),
        finished_at=to_proto(execution.finished_at) if execution else None,
        updated_at=to_proto(record.updated_at),
        request_id=record.request_id,
        possible_duplicate_of=record.possible_duplicate_of or "",
        earlier=earlier_to_pb(record.earlier) if record.earlier else None,
    )


def earlier_to_pb(record: EarlierRecord) -> pb.EarlierApproval:
    execution = record.execution
    return pb.EarlierApproval(
        state=APPROVAL_STATES.proto(record.state),
        execution_id=execution.id if execution else "",
        execution_state=EXECUTION_STATES.proto(execution.state if execution else None),
        result=execution.result if execution else "",
        reason=shown_reason(record.reason, execution),
        created_at=to_proto(record.created_at),
        decided_at=to_proto(record.decided_at),
        finished_at=to_proto(execution.finished_at) if execution else None,
    )


def event_to_pb(row: sa.Row) -> pb.ApprovalEvent:
    return pb.ApprovalEvent(
        approval_id=row.approval_id,
        subject=row.subject,
        from_state=row.from_state or "",
        to_state=row.to_state,
        actor=row.actor,
        reason=row.reason,
        at=to_proto(row.at),
    )
