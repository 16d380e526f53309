"""How a step that waited on another service ends, from what that service
now says: an app action's approval and its single execution (G7), a
payment's yes (G8). None while there is no answer yet."""

from nod_tasks.domain import steps
from nod_tasks.domain.outside import Approval, ApprovalState, ExecutionState, Payment, PaymentState
from nod_tasks.domain.results import ActionEnded, PaymentConfirmed
from nod_tasks.domain.steps import StepEnd, StepState

STOPPED_WAITING = "the task was stopped before the person answered; nothing was done"
STOPPED_AFTER_YES = "the task was stopped after the yes: it may have run"

NOT_DECIDED_YES = {
    ApprovalState.REJECTED: "the person said no; nothing ran",
    ApprovalState.CANCELLED: "it was cancelled; nothing ran",
    ApprovalState.EXPIRED: "nobody decided in time; nothing ran",
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


def approval_end(approval: Approval) -> StepEnd | None:
    """How a proposal's step ends, once its approval is final."""
    if approval.state in NOT_DECIDED_YES:
        return steps.not_run(NOT_DECIDED_YES[approval.state], approval_id=approval.id)
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
        return steps.not_run(NOT_PAYABLE[payment.state], payment_id=payment.id)
    return steps.done(PaymentConfirmed(payment.id), payment_id=payment.id)


def approval_end_after_stop(approval: Approval) -> StepEnd:
    """A stopped task's proposal, read back after the cancel: whether it
    was cancelled is what approvals says now (an earlier cancel's answer
    may have been lost)."""
    if approval.state == ApprovalState.CANCELLED:
        return steps.not_run(STOPPED_WAITING, approval_id=approval.id)
    return approval_end(approval) or steps.uncertain(STOPPED_AFTER_YES, approval_id=approval.id)


def payment_end_after_stop(payment: Payment) -> StepEnd:
    if payment.state == PaymentState.CANCELLED:
        return steps.not_run(STOPPED_WAITING, payment_id=payment.id)
    return payment_end(payment) or steps.uncertain(STOPPED_AFTER_YES, payment_id=payment.id)
