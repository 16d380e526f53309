"""What a task needs from the person right now, with what the page shows
for it: a decision card, a payment card, the private form, a question, or a
check of something uncertain."""

import asyncio
from dataclasses import dataclass
from typing import Any

from nod.approvals.v1 import approvals_pb2 as approvals
from nod.claims.v1 import claims_pb2 as claims
from nod.payments.v1 import payments_pb2 as payments
from nod.tasks.v1 import tasks_pb2 as tasks
from nod_gateway.peers import Nod


@dataclass
class Wait:
    kind: str  # decision | payment | form | question | bank | check
    task: tasks.Task
    prompt: str
    approval: approvals.Approval | None = None
    payment: payments.Payment | None = None
    # The earlier action or payment this one may repeat, with its outcome.
    earlier: Any = None
    account_label: str = ""
    logins: list[claims.VaultItem] | None = None


@dataclass
class ApprovalCard:
    approval: approvals.Approval
    earlier: approvals.EarlierApproval | None
    account_label: str


async def approval_card(nod: Nod, approval_id: str) -> ApprovalCard:
    # Neither call waits for the other.
    got, listed = await asyncio.gather(
        nod.approvals.GetApproval(approvals.GetApprovalRequest(approval_id=approval_id)),
        nod.approvals.ListAccounts(approvals.ListAccountsRequest()),
    )
    approval, accounts = got.approval, listed.accounts
    label = next((a.label for a in accounts if a.id == approval.account_id), "")
    # The earlier approval it may repeat comes with it, as it is now.
    earlier = approval.earlier if approval.possible_duplicate_of else None
    return ApprovalCard(approval, earlier, label)


async def payment_card(nod: Nod, payment_id: str) -> tuple[payments.Payment, Any]:
    payment = (
        await nod.payments.GetPayment(payments.GetPaymentRequest(payment_id=payment_id))
    ).payment
    earlier = None
    if payment.repeat_of_payment_id:
        earlier = (
            await nod.payments.GetPayment(
                payments.GetPaymentRequest(payment_id=payment.repeat_of_payment_id)
            )
        ).payment
    return payment, earlier


async def current(nod: Nod, task: tasks.Task) -> Wait | None:
    if task.state != tasks.TASK_STATE_WAITING:
        return None
    wait = task.wait
    if wait.kind == tasks.WAIT_KIND_DECISION:
        card = await approval_card(nod, wait.id)
        return Wait(
            "decision", task, wait.prompt, card.approval, earlier=card.earlier,
            account_label=card.account_label,
        )  # fmt: skip
    if wait.kind == tasks.WAIT_KIND_PAYMENT:
        payment, earlier = await payment_card(nod, wait.id)
        return Wait("payment", task, wait.prompt, payment=payment, earlier=earlier)
    if wait.kind == tasks.WAIT_KIND_PRIVATE_FORM:
        logins = None
        if wait.form_kind == tasks.FORM_KIND_LOGIN:
            listed = await nod.vault.ListItems(
                claims.ListItemsRequest(kind=claims.ENTRY_KIND_SAVED_LOGIN)
            )
            # Only logins for the site the form is for: nod enters none elsewhere.
            logins = [
                item
                for item in listed.items
                if item.origin == wait.origin or wait.origin in item.equivalent_origins
            ]
        return Wait("form", task, wait.prompt, logins=logins)
    if wait.kind == tasks.WAIT_KIND_ANSWER:
        return Wait("question", task, wait.prompt)
    if wait.kind == tasks.WAIT_KIND_BANK_CONFIRMATION:
        return Wait("bank", task, wait.prompt)
    return Wait("check", task, wait.prompt)
