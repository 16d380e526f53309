"""Waits on something outside the tasks service: an app action's decision
and execution (approvals), a payment's yes (payments). Each instance looks
at the tasks waiting on one, a batch per round and in turn, so every one of
them is looked at however many wait; whichever instance sees the answer
first moves the task on (resolutions.answer_wait is conditional)."""

from dataclasses import replace

from sqlalchemy.ext.asyncio import AsyncEngine

from nod.approvals.v1 import approvals_pb2 as approvals
from nod.payments.v1 import payments_pb2 as payments
from nod_tasks.adapters.peers import Peers
from nod_tasks.app.in_turn import InTurn, each_few_at_once
from nod_tasks.app.resolutions import answer_wait
from nod_tasks.domain import steps
from nod_tasks.domain.steps import StepEnd, StepState
from nod_tasks.domain.tasks import TaskRecord, WaitKind
from nod_tasks.store import tasks as task_store
from nodkit.client import NodRpcError
from nodkit.logging import get_logger

log = get_logger("nod_tasks.waits")
OUTSIDE = [WaitKind.DECISION.value, WaitKind.PAYMENT.value]

EXECUTION_ENDS = {
    approvals.EXECUTION_STATE_DONE: StepState.DONE,
    approvals.EXECUTION_STATE_FAILED: StepState.FAILED,
    approvals.EXECUTION_STATE_NOT_RUN: StepState.NOT_RUN,
    approvals.EXECUTION_STATE_UNCERTAIN: StepState.UNCERTAIN,
}
NOT_DECIDED_YES = {
    approvals.APPROVAL_STATE_REJECTED: "the person said no; nothing ran",
    approvals.APPROVAL_STATE_CANCELLED: "it was cancelled; nothing ran",
    approvals.APPROVAL_STATE_EXPIRED: "nobody decided in time; nothing ran",
}
NOT_PAYABLE = {
    payments.PAYMENT_STATE_REFUSED: "the person said no; nothing was paid",
    payments.PAYMENT_STATE_CANCELLED: "the payment was cancelled; nothing was paid",
    payments.PAYMENT_STATE_EXPIRED: "nobody said yes in time; nothing was paid",
}


def approval_end(approval: approvals.Approval) -> StepEnd | None:
    """How a proposal's step ends, once its approval is final; None before."""
    made = {"approval_id": approval.id}
    if approval.state in NOT_DECIDED_YES:
        return replace(steps.not_run(NOT_DECIDED_YES[approval.state]), approval_id=approval.id)
    state = EXECUTION_ENDS.get(approval.execution_state)
    if approval.state != approvals.APPROVAL_STATE_APPROVED or state is None:
        return None
    execution = approvals.ExecutionState.Name(approval.execution_state)
    result = {
        "outcome": state.value,
        "execution": execution.removeprefix("EXECUTION_STATE_").lower(),
        "result": approval.result,
        "why": approval.reason,
    }
    if state == StepState.UNCERTAIN:
        return StepEnd(state, result, reason=steps.uncertain(approval.reason).reason, **made)
    return StepEnd(state, result, reason=approval.reason, **made)


def payment_end(payment: payments.Payment) -> StepEnd | None:
    made = {"payment_id": payment.id}
    if payment.state == payments.PAYMENT_STATE_AWAITING_CONFIRMATION:
        return None
    if payment.state in NOT_PAYABLE:
        return replace(steps.not_run(NOT_PAYABLE[payment.state]), payment_id=payment.id)
    result = {"outcome": "done", "payment_id": payment.id, "state": "confirmed"}
    return StepEnd(StepState.DONE, result, **made)


class OutsideWaits:
    def __init__(self, engine: AsyncEngine, peers: Peers, *, batch: int) -> None:
        self._engine = engine
        self._peers = peers
        self._waiting = InTurn(engine, _waiting_outside, batch=batch)

    async def settle_round(self) -> int:
        """Looks at the next batch of waiting tasks; how many it moved on."""
        waiting = await self._waiting.next_batch()
        return await each_few_at_once(waiting, self._settle, "waits.not_settled")

    async def _settle(self, task: TaskRecord) -> bool:
        try:
            end = await _answer_of(self._peers, task)
        except NodRpcError as error:
            log.warning("waits.unreadable", task_id=task.id, status=error.code.name)
            return False
        if end is None or task.wait is None:
            return False
        async with self._engine.begin() as conn:
            return await answer_wait(conn, task, task.wait, step_end=end) is not None


async def _waiting_outside(conn, limit: int, after) -> list[TaskRecord]:
    return await task_store.waiting_for(conn, OUTSIDE, limit, after)


async def _answer_of(peers: Peers, task: TaskRecord) -> StepEnd | None:
    wait = task.wait
    assert wait is not None
    if wait.kind == WaitKind.DECISION:
        return approval_end(await approval_of(peers, task.owner, wait.id))
    return payment_end(await payment_of(peers, task.owner, wait.id))


async def approval_of(peers: Peers, owner: str, approval_id: str) -> approvals.Approval:
    reply = await peers.approvals.call(
        peers.approvals_stub.GetApproval,
        approvals.GetApprovalRequest(approval_id=approval_id),
        owner,
    )
    return reply.approval


async def payment_of(peers: Peers, owner: str, payment_id: str) -> payments.Payment:
    reply = await peers.payments.call(
        peers.payments_stub.GetPayment, payments.GetPaymentRequest(payment_id=payment_id), owner
    )
    return reply.payment
