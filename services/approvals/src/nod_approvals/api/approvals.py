"""ApprovalsService: proto <-> the approvals use cases."""

from nod.approvals.v1 import approvals_pb2 as pb
from nod.approvals.v1 import approvals_pb2_grpc
from nod_approvals.api.convert import (
    APPROVAL_STATES,
    DECISIONS,
    account_to_pb,
    approval_to_pb,
    event_to_pb,
    struct_to_dict,
)
from nod_approvals.app.accounts import Accounts
from nod_approvals.app.approvals import Approvals
from nod_approvals.app.decisions import Decisions
from nod_approvals.app.proposals import Proposal, Proposals
from nod_approvals.domain.accounts import AccountInput
from nodkit import listing
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
        account = request.account
        record = await self._accounts.connect(
            current_user(),
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
        record = await self._proposals.propose(
            current_user(),
            Proposal(
                task_id=request.task_id,
                account_id=request.account_id,
                action=request.action,
                parameters=struct_to_dict(request.parameters),
                summary=request.summary,
                request_id=request.request_id,
            ),
        )
        return pb.ProposeResponse(approval=approval_to_pb(record))

    async def Decide(self, request, context) -> pb.DecideResponse:
        decision = DECISIONS.domain("decision", request.decision)
        record = await self._decisions.decide(
            current_user(),
            request.approval_id,
            decision,
            confirmed_duplicate=request.confirm_duplicate,
        )
        return pb.DecideResponse(approval=approval_to_pb(record))

    async def GetApproval(self, request, context) -> pb.GetApprovalResponse:
        record = await self._approvals.get(current_user(), request.approval_id)
        return pb.GetApprovalResponse(approval=approval_to_pb(record))

    async def ListApprovals(self, request, context) -> pb.ListApprovalsResponse:
        page = await self._approvals.list_approvals(
            current_user(),
            task_id=request.task_id,
            state=APPROVAL_STATES.optional("state", request.state),
            page=listing.page_request(request.page_size, request.page_token),
        )
        return pb.ListApprovalsResponse(
            approvals=[approval_to_pb(r) for r in page.items], next_page_token=page.next_token
        )

    async def ListApprovalEvents(self, request, context) -> pb.ListApprovalEventsResponse:
        rows = await self._approvals.events(current_user(), request.approval_id)
        return pb.ListApprovalEventsResponse(events=[event_to_pb(row) for row in rows])

    async def CancelForTask(self, request, context) -> pb.CancelForTaskResponse:
        records = await self._approvals.cancel_for_task(
            current_user(), request.task_id, request.reason
        )
        return pb.CancelForTaskResponse(approvals=[approval_to_pb(r) for r in records])

    async def EraseActionWords(self, request, context) -> pb.EraseActionWordsResponse:
        done = await self._approvals.erase_words(current_user())
        return pb.EraseActionWordsResponse(
            erased=done.approvals, still_open=done.still_open, accounts_erased=done.accounts
        )

    async def WatchApproval(self, request, context):
        async for record in self._approvals.watch(current_user(), request.approval_id):
            yield pb.WatchApprovalResponse(approval=approval_to_pb(record))
