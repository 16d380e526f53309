"""Domain records <-> protobuf messages."""

from google.protobuf import struct_pb2

from nod.approvals.v1 import approvals_pb2 as pb
from nod_approvals.accounts import AccountRecord
from nod_approvals.domain import ApprovalRecord, ApprovalState, Decision, ExecutionState
from nodkit.timestamps import to_proto

DECISIONS = {pb.DECISION_YES: Decision.YES, pb.DECISION_NO: Decision.NO}
APPROVAL_STATES = {
    pb.APPROVAL_STATE_PENDING: ApprovalState.PENDING,
    pb.APPROVAL_STATE_APPROVED: ApprovalState.APPROVED,
    pb.APPROVAL_STATE_REJECTED: ApprovalState.REJECTED,
    pb.APPROVAL_STATE_CANCELLED: ApprovalState.CANCELLED,
    pb.APPROVAL_STATE_EXPIRED: ApprovalState.EXPIRED,
}
EXECUTION_STATES = {
    pb.EXECUTION_STATE_RUNNING: ExecutionState.RUNNING,
    pb.EXECUTION_STATE_DONE: ExecutionState.DONE,
    pb.EXECUTION_STATE_NOT_RUN: ExecutionState.NOT_RUN,
    pb.EXECUTION_STATE_FAILED: ExecutionState.FAILED,
    pb.EXECUTION_STATE_UNCERTAIN: ExecutionState.UNCERTAIN,
}
APPROVAL_STATE_TO_PB = {v: k for k, v in APPROVAL_STATES.items()}
EXECUTION_STATE_TO_PB = {v: k for k, v in EXECUTION_STATES.items()}


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
        state=APPROVAL_STATE_TO_PB[record.state],
        digest=record.digest,
        saved_action=record.saved_action,
        execution_id=execution.id if execution else "",
        execution_state=EXECUTION_STATE_TO_PB[execution.state] if execution else 0,
        result=execution.result if execution else "",
        reason=record.shown_reason,
        created_at=to_proto(record.created_at),
        expires_at=to_proto(record.expires_at),
        decided_at=to_proto(record.decided_at),
        finished_at=to_proto(execution.finished_at) if execution else None,
        updated_at=to_proto(record.updated_at),
    )


def event_to_pb(row) -> pb.ApprovalEvent:
    return pb.ApprovalEvent(
        approval_id=row.approval_id,
        subject=row.subject,
        from_state=row.from_state or "",
        to_state=row.to_state,
        actor=row.actor,
        reason=row.reason,
        at=to_proto(row.at),
    )
