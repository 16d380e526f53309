"""Builders for the payments tests: payments in each state, real card
claims for them (through the claims service, as the browser runner makes
them), and reading the service's own tables for what a caller can't see
(its history)."""

import asyncio
import uuid

import sqlalchemy as sa

from nod.claims.v1 import claims_pb2 as claims_pb
from nod.payments.v1 import payments_pb2 as pb
from nodtest.claims import put_card

SHOP = "https://shop.example"
CARD_LABEL = "•••• 4242"


def create_request(**overrides) -> pb.CreatePaymentRequest:
    values = {
        "request_id": f"request-{uuid.uuid4()}",
        "task_id": f"task-{uuid.uuid4().hex[:8]}",
        "merchant_origin": SHOP,
        "amount_minor": 2599,
        "currency": "EUR",
        "description": "1 × blue teapot",
        "card_item_id": str(uuid.uuid4()),
        "card_label": CARD_LABEL,
        **overrides,
    }
    return pb.CreatePaymentRequest(**values)


class SavedCards:
    """The person's saved cards in the claims service the suite runs: a card
    entry binds only a card the person has saved (G13). Set by conftest."""

    vault = None

    @classmethod
    async def one(cls, meta) -> str:
        assert cls.vault is not None, "conftest sets SavedCards.vault"
        return (await put_card(cls.vault, meta)).id


async def create_payment(stub, meta, **overrides) -> pb.Payment:
    """A payment request with a card the person has saved, unless one is named."""
    if "card_item_id" not in overrides:
        overrides["card_item_id"] = await SavedCards.one(meta)
    reply = await stub.CreatePayment(create_request(**overrides), metadata=meta)
    return reply.payment


async def confirmed_payment(stub, meta, **overrides) -> pb.Payment:
    payment = await create_payment(stub, meta, **overrides)
    request = pb.ConfirmPaymentRequest(payment_id=payment.id, decision=pb.DECISION_YES)
    return (await stub.ConfirmPayment(request, metadata=meta)).payment


async def running_payment(stub, meta, **overrides) -> pb.Payment:
    payment = await confirmed_payment(stub, meta, **overrides)
    request = pb.StartCardEntryRequest(payment_id=payment.id)
    return (await stub.StartCardEntry(request, metadata=meta)).payment


class CardClaims:
    """The person's saved cards and the claims a runner makes to enter them."""

    HOLDER = f"payments-tests-runner-{uuid.uuid4().hex[:6]}"

    def __init__(self, claims_stub, vault_stub) -> None:
        self.claims_stub = claims_stub
        self.vault_stub = vault_stub

    async def card(self, meta) -> str:
        """A saved card of the person's; its item id."""
        return (await put_card(self.vault_stub, meta)).id

    async def claim(
        self, meta, payment: pb.Payment, *, submit=True, **overrides
    ) -> claims_pb.Claim:
        """The claim a runner makes for the payment's card entry (its card
        operation id and card, unless overridden), then SUBMITTED."""
        await self.claims_stub.RenewHolder(
            claims_pb.RenewHolderRequest(holder=self.HOLDER), metadata=meta
        )
        values = {
            "operation_id": payment.card_operation_id,
            "kind": claims_pb.ENTRY_KIND_CARD,
            "item_id": payment.card_item_id,
            "origin": payment.merchant_origin,
            "task_id": payment.task_id,
            "holder": self.HOLDER,
            **overrides,
        }
        reply = await self.claims_stub.Claim(claims_pb.ClaimRequest(**values), metadata=meta)
        assert reply.granted, reply.claim
        if not submit:
            return reply.claim
        request = claims_pb.MarkSubmittedRequest(claim_id=reply.claim.id, holder=self.HOLDER)
        return (await self.claims_stub.MarkSubmitted(request, metadata=meta)).claim


async def submitted_payment(stub, meta, claims: CardClaims, **overrides) -> pb.Payment:
    """Entered with the person's own saved card under a real, submitted claim."""
    overrides.setdefault("card_item_id", await claims.card(meta))
    payment = await running_payment(stub, meta, **overrides)
    claim = await claims.claim(meta, payment)
    request = pb.RecordSubmittedRequest(payment_id=payment.id, claim_id=claim.id)
    return (await stub.RecordSubmitted(request, metadata=meta)).payment


async def uncertain_payment(stub, meta, **overrides) -> pb.Payment:
    payment = await running_payment(stub, meta, **overrides)
    request = pb.RecordUncertainRequest(payment_id=payment.id, reason="the page stopped answering")
    return (await stub.RecordUncertain(request, metadata=meta)).payment


async def get_payment(stub, meta, payment_id: str) -> pb.Payment:
    reply = await stub.GetPayment(pb.GetPaymentRequest(payment_id=payment_id), metadata=meta)
    return reply.payment


async def wait_for_state(stub, meta, payment_id: str, state, timeout_s: float = 15.0):
    """Polls until the payment is in `state`; fails with the last one seen."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    while True:
        payment = await get_payment(stub, meta, payment_id)
        if payment.state == state:
            return payment
        if asyncio.get_running_loop().time() > deadline:
            name = pb.PaymentState.Name(payment.state)
            raise AssertionError(f"payment {payment_id} still {name} after {timeout_s}s")
        await asyncio.sleep(0.05)


async def transitions(engine, payment_id: str) -> list[tuple[str | None, str, str]]:
    """The payment's history as (from, to, actor), oldest first."""
    query = sa.text(
        "SELECT from_state, to_state, actor FROM payments.payment_events"
        " WHERE payment_id = :id ORDER BY id"
    )
    async with engine.connect() as conn:
        return [tuple(row) for row in await conn.execute(query, {"id": payment_id})]


async def count_payments(engine, owner: str) -> int:
    query = sa.text("SELECT count(*) FROM payments.payments WHERE owner = :owner")
    async with engine.connect() as conn:
        return (await conn.execute(query, {"owner": owner})).scalar_one()
