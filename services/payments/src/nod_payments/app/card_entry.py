"""The card entry: bound to where the card may go, then started once, then
submitted or uncertain under the card claim it names (checked with the
claims service), then the outcome read from the page (G3, G4, G8, G13)."""

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from nod_payments.adapters.claims_client import ClaimsClient
from nod_payments.domain.card_entry import card_entry_binding, check_card_claim, uncertain_reason
from nod_payments.domain.payments import (
    PaymentOutcome,
    PaymentRecord,
    PaymentState,
    card_operation_id,
)
from nod_payments.domain.refusals import (
    existing,
    explain_refused_finish,
    explain_refused_outcome,
    explain_refused_start,
)
from nod_payments.store import payments as store
from nod_payments.store import transitions
from nodkit import faults, validation
from nodkit.leases import OwnLease
from nodkit.logging import get_logger

log = get_logger("nod_payments.card_entry")


class CardEntry:
    def __init__(self, engine: AsyncEngine, lease: OwnLease, claims: ClaimsClient) -> None:
        self._engine = engine
        self._lease = lease
        self._claims = claims

    async def _current(self, conn: AsyncConnection, owner: str, payment_id: str) -> PaymentRecord:
        return existing(await store.get_payment(conn, owner, payment_id))

    async def start(self, owner: str, payment_id: str) -> PaymentRecord:
        """CONFIRMED -> RUNNING, owned by this instance, once the card entry
        is bound (G13). The lease is renewed first, so no sweeper can take
        this instance for dead mid-entry.

        The binding comes first, outside any transaction: a start that can't
        bind (no definite answer from the claims service) leaves the payment
        CONFIRMED and hands out no operation id, so nothing can proceed as
        if bound, and a later start binds again (the claims service answers
        the first binding: the operation id and the payment never change).
        The other order would leave a RUNNING payment whose card can't be
        claimed, ended UNCERTAIN by the sweeper though nothing was typed. A
        binding whose payment is then cancelled binds nothing that can be
        claimed: its operation id is never handed out."""
        payment_id = validation.uuid_id("payment_id", payment_id)
        await self._lease.renew()
        instance = self._lease.instance_id
        operation_id = card_operation_id(payment_id)
        async with self._engine.connect() as conn:
            payment = await self._current(conn, owner, payment_id)
        if payment.state != PaymentState.CONFIRMED:
            return explain_refused_start(payment)
        await self._claims.bind_card_entry(owner, card_entry_binding(payment, operation_id))
        async with self._engine.begin() as conn:
            moved = await transitions.start(conn, owner, payment_id, instance, operation_id)
            if not moved:
                current = await self._current(conn, owner, payment_id)
        if not moved:
            return explain_refused_start(current)
        log.info("payment.card_entry_started", payment_id=payment_id, instance=instance)
        await faults.point("payments.card_claim")
        return moved[0]

    async def finish(
        self,
        owner: str,
        payment_id: str,
        target: PaymentState,
        *,
        claim_id: str = "",
        reason: str = "",
    ) -> PaymentRecord:
        payment_id = validation.uuid_id("payment_id", payment_id)
        claim: str | None
        if target == PaymentState.SUBMITTED:
            claim = validation.uuid_id("claim_id", claim_id)
        else:
            claim = validation.optional_uuid_id("claim_id", claim_id)
        reason = uncertain_reason(reason)
        async with self._engine.connect() as conn:
            current = await self._current(conn, owner, payment_id)
        if current.state != PaymentState.RUNNING:
            # A resend after the end, or too early: the payment alone answers.
            return explain_refused_finish(current, target, claim)
        if claim is not None:
            # Outside any transaction: nothing is held while claims answers.
            check_card_claim(await self._claims.get_claim(owner, claim), claim, current, target)
        async with self._engine.begin() as conn:
            moved = await transitions.finish(
                conn, owner, payment_id, target, claim_id=claim, reason=reason
            )
            if not moved:
                current = await self._current(conn, owner, payment_id)
        if not moved:
            return explain_refused_finish(current, target, claim)
        log.info("payment.card_entry_finished", payment_id=payment_id, state=target.value)
        await faults.point("payments.submitted")
        return moved[0]

    async def record_outcome(
        self, owner: str, payment_id: str, outcome: PaymentOutcome
    ) -> PaymentRecord:
        payment_id = validation.uuid_id("payment_id", payment_id)
        async with self._engine.begin() as conn:
            moved = await transitions.record_outcome(conn, owner, payment_id, outcome)
            if not moved:
                current = await self._current(conn, owner, payment_id)
        if not moved:
            return explain_refused_outcome(current, outcome)
        log.info("payment.outcome", payment_id=payment_id, outcome=outcome.value)
        await faults.point("payments.outcome")
        return moved[0]
