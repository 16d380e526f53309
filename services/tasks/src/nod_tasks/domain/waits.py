"""How a step that waited on another service ends, from what that service
now says: an app action's approval and its single execution (G7), a
payment's yes (G8), a bank's confirmation of a payment nod submitted (the
shop's page shows the outcome). None while there is no answer yet."""

from nod_tasks.domain import steps
from nod_tasks.domain.checks import PaymentOutcome
from nod_tasks.domain.outside import Approval, ApprovalState, ExecutionState, Payment, PaymentState
from nod_tasks.domain.pages import Page
from nod_tasks.domain.reasons import Reason
from nod_tasks.domain.results import ActionEnded, Paid, PaymentConfirmed
from nod_tasks.domain.steps import StepEnd, StepState

STOPPED_WAITING = "the task was stopped before the person answered; nothing was done"
STOPPED_AFTER_YES = "the task was stopped after the yes: it may have run"
STOPPED_AT_THE_BANK = "the task was stopped while the bank's confirmation was pending"
BANK_TOO_LONG = "the shop showed no outcome in time after the bank was asked to confirm"
PAGE_GONE = "the shop's page was lost while the bank's confirmation was pending"

NOT_DECIDED_YES = {
    ApprovalState.REJECTED: "the person said no; nothing ran",
    ApprovalState.CANCELLED: "it was cancelled; nothing ran",
    ApprovalState.EXPIRED: "nobody decided in time; nothing ran",
}
# The same as codes a reader words (domain.reasons).
NOT_DECIDED_YES_CODES = {
    ApprovalState.REJECTED: Reason.PERSON_SAID_NO,
    ApprovalState.CANCELLED: Reason.STOPPED,
    ApprovalState.EXPIRED: Reason.EXPIRED,
}
EXECUTION_ENDS = {
    ExecutionState.DONE: StepState.DONE,
    ExecutionState.FAILED: StepState.FAILED,
    ExecutionState.NOT_RUN: StepState.NOT_RUN,
    ExecutionState.UNCERTAIN: StepState.UNCERTAIN,
}
NOT_PAYABLE = {
    PaymentState.REFUSED: "the person said no; nothing was paid",
    PaymentState.CANCELLED: "the payment was cancelled; nothing was paid",
    PaymentState.EXPIRED: "nobody said yes in time; nothing was paid",
}
NOT_PAYABLE_CODES = {
    PaymentState.REFUSED: Reason.PERSON_SAID_NO,
    PaymentState.CANCELLED: Reason.STOPPED,
    PaymentState.EXPIRED: Reason.EXPIRED,
}


def approval_end(approval: Approval) -> StepEnd | None:
    """How a proposal's step ends, once its approval is final."""
    if approval.state in NOT_DECIDED_YES:
        return steps.not_run(
            NOT_DECIDED_YES[approval.state],
            code=NOT_DECIDED_YES_CODES[approval.state],
            approval_id=approval.id,
        )
    state = EXECUTION_ENDS.get(approval.execution) if approval.execution else None
    if approval.state != ApprovalState.APPROVED or state is None:
        return None
    assert approval.execution is not None
    reason = approval.reason
    if state == StepState.UNCERTAIN:
        reason = steps.uncertain(approval.reason).reason
    result = ActionEnded(state.value, approval.execution.value, approval.result, approval.reason)
    return StepEnd(state, result, reason=reason, approval_id=approval.id)


def payment_end(payment: Payment) -> StepEnd | None:
    """How a payment request's step ends, once the person answered."""
    if payment.state in (PaymentState.AWAITING_CONFIRMATION, PaymentState.UNKNOWN):
        return None
    if payment.state in NOT_PAYABLE:
        return steps.not_run(
            NOT_PAYABLE[payment.state], code=NOT_PAYABLE_CODES[payment.state], payment_id=payment.id
        )
    return steps.done(PaymentConfirmed(payment.id), payment_id=payment.id)


def approval_end_after_stop(approval: Approval) -> StepEnd:
    """A stopped task's proposal, read back after the cancel: whether it
    was cancelled is what approvals says now (an earlier cancel's answer
    may have been lost)."""
    if approval.state == ApprovalState.CANCELLED:
        return steps.not_run(STOPPED_WAITING, code=Reason.STOPPED, approval_id=approval.id)
    return approval_end(approval) or steps.uncertain(STOPPED_AFTER_YES, approval_id=approval.id)


def payment_end_after_stop(payment: Payment) -> StepEnd:
    if payment.state == PaymentState.CANCELLED:
        return steps.not_run(STOPPED_WAITING, code=Reason.STOPPED, payment_id=payment.id)
    return payment_end(payment) or steps.uncertain(STOPPED_AFTER_YES, payment_id=payment.id)


def bank_confirmation_end(
    payment_id: str, outcome: PaymentOutcome, page: Page, waited_s: float, limit_s: float
) -> StepEnd | None:
    """A payment submitted while the bank asks the person to confirm it: it
    ends when the shop shows paid or declined; past limit_s without either,
    it may have gone through (UNCERTAIN: the person checks with the bank)."""
    if outcome in (PaymentOutcome.PAID, PaymentOutcome.DECLINED):
        return steps.done(Paid(payment_id, outcome, page))
    if waited_s > limit_s:
        return steps.uncertain(BANK_TOO_LONG)
    return None
