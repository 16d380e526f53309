"""gRPC <-> domain translation only: each method checks the person, makes one
use-case call and builds the reply."""

from nod.approvals.v1 import approvals_pb2 as pb
from nod.approvals.v1 import approvals_pb2_grpc
from nod_approvals.accounts import AccountInput
from nod_approvals.accounts_app import Accounts
from nod_approvals.approvals_app import Approvals
from nod_approvals.convert import (
    APPROVAL_STATES,
    DECISIONS,
    account_to_pb,
    approval_to_pb,
    event_to_pb,
    struct_to_dict,
)
from nod_approvals.decisions_app import Decisions
from nod_approvals.proposals_app import Proposal, Proposals
from nodkit import pagination, validation
from nodkit.identity import current_user


class ApprovalsServicer(approvals_pb2_grpc.ApprovalsServiceServicer):
    def __init__(
        self, accounts: Accounts, proposals: Proposals, decisions: Decisions, approvals: Approvals
    ) -> None:
        self._accounts = accounts
        self._proposals = proposals
        self._decisions = decisions
        self._approvals = approvals

    async def ConnectAccount(self, request, context) -> pb.ConnectAccountResponse:
        owner = current_user()
        account = request.account
        record = await self._accounts.connect(
            owner,
            AccountInput(
                app=account.app,
                label=account.label,
                settings=dict(account.settings),
                credentials=dict(account.credentials),
            ),
        )
        return pb.ConnectAccountResponse(account=account_to_pb(record))

    async def DisconnectAccount(self, request, context) -> pb.DisconnectAccountResponse:
        record = await self._accounts.disconnect(current_user(), request.account_id)
        return pb.DisconnectAccountResponse(account=account_to_pb(record))

    async def ListAccounts(self, request, context) -> pb.ListAccountsResponse:
        records = await self._accounts.list_connected(current_user())
        return pb.ListAccountsResponse(accounts=[account_to_pb(r) for r in records])

    async def Propose(self, request, context) -> pb.ProposeResponse:
        owner = current_user()
        record = await self._proposals.propose(
            owner,
            Proposal(
                task_id=request.task_id,
                account_id=request.account_id,
                action=request.action,
                parameters=struct_to_dict(request.parameters),
                summary=request.summary,
            ),
        )
        return pb.ProposeResponse(approval=approval_to_pb(record))

    async def Decide(self, request, context) -> pb.DecideResponse:
        owner = current_user()
        decision = validation.enum_member("decision", request.decision, DECISIONS)
        record = await self._decisions.decide(owner, request.approval_id, decision)
        return pb.DecideResponse(approval=approval_to_pb(record))

    async def GetApproval(self, request, context) -> pb.GetApprovalResponse:
        record = await self._approvals.get(current_user(), request.approval_id)
        return pb.GetApprovalResponse(approval=approval_to_pb(record))

    async def ListApprovals(self, request, context) -> pb.ListApprovalsResponse:
        owner = current_user()
        limit = validation.page_size(request.page_size)
        task_id = request.task_id
        records = await self._approvals.list_approvals(
            owner,
            task_id=validation.printable_id("task_id", task_id) if task_id else None,
            state=validation.enum_member("state", request.state, APPROVAL_STATES)
            if request.state
            else None,
            after=pagination.decode(request.page_token),
            limit=limit + 1,
        )
        records, token = pagination.page(records, limit)
        return pb.ListApprovalsResponse(
            approvals=[approval_to_pb(r) for r in records], next_page_token=token
        )

    async def ListApprovalEvents(self, request, context) -> pb.ListApprovalEventsResponse:
        rows = await self._approvals.events(current_user(), request.approval_id)
        return pb.ListApprovalEventsResponse(events=[event_to_pb(row) for row in rows])

    async def CancelForTask(self, request, context) -> pb.CancelForTaskResponse:
        records = await self._approvals.cancel_for_task(
            current_user(), request.task_id, request.reason
        )
        return pb.CancelForTaskResponse(approvals=[approval_to_pb(r) for r in records])

    async def WatchApproval(self, request, context):
        async for record in self._approvals.watch(current_user(), request.approval_id):
            yield pb.WatchApprovalResponse(approval=approval_to_pb(record))
