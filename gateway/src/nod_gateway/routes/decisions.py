"""Decisions: every app action and payment waiting for the person's yes or
no, across their tasks, each with the same card the task's page shows (and
a link to that page). A decision made here is the same one call."""

import asyncio
from collections.abc import Awaitable, Callable

from fastapi import APIRouter, Request
from fastapi.responses import Response

from nod.approvals.v1 import approvals_pb2 as approvals
from nod.payments.v1 import payments_pb2 as payments
from nod.tasks.v1 import tasks_pb2 as tasks
from nod_gateway.peers import Nod
from nod_gateway.waits import payment_card
from nod_gateway.web.render import page
from nod_gateway.web.sessions import SignedIn

router = APIRouter()
PAGE_SIZE = 100
# Enough for anyone's open decisions; past it the page says there are more.
MAX_PAGES = 5


async def _every(list_page: Callable[[str], Awaitable], field: str) -> tuple[list, bool]:
    """All the rows of a paged list, up to MAX_PAGES; and whether more remain."""
    rows: list = []
    token = ""
    for _ in range(MAX_PAGES):
        reply = await list_page(token)
        rows += getattr(reply, field)
        token = reply.next_page_token
        if not token:
            return rows, False
    return rows, True


async def _waiting_tasks(nod: Nod) -> dict[str, str]:
    """Each waiting task's text, to say which task a decision belongs to."""

    def one_page(token: str):
        return nod.tasks.ListTasks(
            tasks.ListTasksRequest(
                state=tasks.TASK_STATE_WAITING, page_size=PAGE_SIZE, page_token=token
            )
        )

    waiting, _more = await _every(one_page, "tasks")
    return {task.id: task.text for task in waiting}


@router.get("/decisions")
async def decisions_page(request: Request, asked: SignedIn) -> Response:
    nod = asked.nod

    def approvals_page(token: str):
        return nod.approvals.ListApprovals(
            approvals.ListApprovalsRequest(
                state=approvals.APPROVAL_STATE_PENDING, page_size=PAGE_SIZE, page_token=token
            )
        )

    def payments_page(token: str):
        return nod.payments.ListPayments(
            payments.ListPaymentsRequest(
                state=payments.PAYMENT_STATE_AWAITING_CONFIRMATION,
                page_size=PAGE_SIZE,
                page_token=token,
            )
        )

    (pending, more_approvals), (awaiting, more_payments), texts, accounts = await asyncio.gather(
        _every(approvals_page, "approvals"),
        _every(payments_page, "payments"),
        _waiting_tasks(nod),
        nod.approvals.ListAccounts(approvals.ListAccountsRequest()),
    )
    labels = {account.id: account.label for account in accounts.accounts}
    # A payment that may repeat an earlier one shows that one beside it.
    earlier = await asyncio.gather(
        *(payment_card(nod, p.id) for p in awaiting if p.repeat_of_payment_id)
    )
    earlier_payments = {shown.id: before for shown, before in earlier}
    return page(
        request,
        "decisions.html",
        pending=pending,
        awaiting=awaiting,
        more=more_approvals or more_payments,
        texts=texts,
        labels=labels,
        earlier_payments=earlier_payments,
    )
