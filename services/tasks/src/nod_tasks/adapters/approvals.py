"""The approvals service as the tasks service calls it: the person's
connected apps, proposals, their decisions and single executions."""

from google.protobuf import struct_pb2
from pydantic import SecretStr

from nod.approvals.v1 import approvals_pb2 as pb
from nod.approvals.v1 import approvals_pb2_grpc
from nod_tasks.adapters.enums import to_domain
from nod_tasks.domain.model import AppAccount
from nod_tasks.domain.outside import (
    AppRecordPlace,
    Approval,
    ApprovalState,
    ExecutionState,
    Proposal,
)
from nodkit.peers import Peer
from nodkit.tls import Tls

SERVICES = [pb.DESCRIPTOR.services_by_name["ApprovalsService"]]
# A webhook account's setting: where the app lists what it received.
STATUS_URL = "status_url"


def approval_of(message: pb.Approval) -> Approval:
    execution = None
    if message.execution_state:
        execution = to_domain(
            pb.ExecutionState, ExecutionState, message.execution_state, ExecutionState.UNCERTAIN
        )
    return Approval(
        id=message.id,
        state=to_domain(pb.ApprovalState, ApprovalState, message.state, ApprovalState.UNKNOWN),
        summary=message.summary,
        execution=execution,
        result=message.result,
        reason=message.reason,
    )


class ApprovalsPeer:
    def __init__(
        self, address: str, token: SecretStr | None, timeout_s: float, *, tls: Tls | None = None
    ) -> None:
        self._peer = Peer(address, token, timeout_s, SERVICES, name="approvals", tls=tls)
        self._stub = self._peer.stub(approvals_pb2_grpc.ApprovalsServiceStub)

    async def connected_accounts(self, owner: str) -> list[AppAccount]:
        reply = await self._peer.call(self._stub.ListAccounts, pb.ListAccountsRequest(), owner)
        return [AppAccount(a.id, a.app, a.label) for a in reply.accounts if a.connected]

    async def propose(self, owner: str, proposal: Proposal) -> Approval:
        parameters = struct_pb2.Struct()
        parameters.update(proposal.parameters)
        request = pb.ProposeRequest(
            task_id=proposal.task_id,
            account_id=proposal.account_id,
            action=proposal.action,
            parameters=parameters,
            summary=proposal.summary,
            request_id=proposal.request_id,
        )
        return approval_of((await self._peer.call(self._stub.Propose, request, owner)).approval)

    async def look_place(self, owner: str, approval_id: str) -> AppRecordPlace:
        """Where the app keeps its own record of what it received, for a
        look at this approval's execution: the account's status address
        (a webhook account may name one), with the execution's id."""
        request = pb.GetApprovalRequest(approval_id=approval_id)
        approval = (await self._peer.call(self._stub.GetApproval, request, owner)).approval
        accounts = await self._peer.call(self._stub.ListAccounts, pb.ListAccountsRequest(), owner)
        status_url = next(
            (
                a.settings.get(STATUS_URL, "")
                for a in accounts.accounts
                if a.id == approval.account_id
            ),
            "",
        )
        return AppRecordPlace(approval.app, approval.execution_id, status_url)

    async def get(self, owner: str, approval_id: str) -> Approval:
        request = pb.GetApprovalRequest(approval_id=approval_id)
        return approval_of((await self._peer.call(self._stub.GetApproval, request, owner)).approval)

    async def cancel_for_task(self, owner: str, task_id: str, reason: str) -> None:
        request = pb.CancelForTaskRequest(task_id=task_id, reason=reason)
        await self._peer.call(self._stub.CancelForTask, request, owner)

    async def close(self) -> None:
        await self._peer.close()
