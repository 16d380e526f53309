"""What the services say of a step's claim, approval and payment: asked only
for the ids a step has, so a step with none asks no service."""

import asyncio

from nod.approvals.v1 import approvals_pb2 as approvals
from nod.claims.v1 import claims_pb2 as claims
from nod.payments.v1 import payments_pb2 as payments
from nod.tasks.v1 import tasks_pb2 as tasks
from nod_gateway.peers import Nod, ServiceCallFailed
from nod_gateway.timeline.lines import PAY_TOOLS, Found, arguments_of
from nod_gateway.web import words


async def _claim(nod: Nod, claim_id: str, found: Found) -> None:
    try:
        found.claim = (await nod.claims.GetClaim(claims.GetClaimRequest(claim_id=claim_id))).claim
    except ServiceCallFailed:
        found.silent.append(words.CLAIMS_SILENT)


async def _approval(nod: Nod, approval_id: str, found: Found) -> None:
    try:
        reply = await nod.approvals.GetApproval(
            approvals.GetApprovalRequest(approval_id=approval_id)
        )
    except ServiceCallFailed:
        found.silent.append(words.APPROVALS_SILENT)
        return
    found.approval = reply.approval


async def _payment(nod: Nod, payment_id: str, found: Found) -> None:
    try:
        reply = await nod.payments.GetPayment(payments.GetPaymentRequest(payment_id=payment_id))
    except ServiceCallFailed:
        found.silent.append(words.PAYMENTS_SILENT)
        return
    found.payment = reply.payment


def _paid_by(payment: payments.Payment, claim_id: str, claim: claims.Claim | None) -> bool:
    """Whether the step's claim is the payment's card entry."""
    if payment.claim_id:
        return payment.claim_id == claim_id
    operation = payment.card_operation_id
    return bool(operation) and claim is not None and claim.operation_id == operation


async def look_up(nod: Nod, step: tasks.Step) -> Found:
    """What the services say of the step's claim, approval and payment; no
    call at all for a step with none."""
    found = Found()
    calls = []
    if step.claim_id:
        calls.append(_claim(nod, step.claim_id, found))
    if step.approval_id:
        calls.append(_approval(nod, step.approval_id, found))
    # A pay step records its card entry's claim, and names its payment only
    # in its arguments: that payment is shown only if the claim is its card's.
    named = arguments_of(step).get("payment_id") if step.tool in PAY_TOOLS else None
    checked = not step.payment_id and bool(step.claim_id) and isinstance(named, str) and named
    if step.payment_id or checked:
        calls.append(_payment(nod, step.payment_id or str(named), found))
    if calls:
        await asyncio.gather(*calls)
    if checked and found.payment and not _paid_by(found.payment, step.claim_id, found.claim):
        found.payment = None
    return found
