"""The payments service as the tasks service calls it: a payment request,
the person's yes, the card entry's start and end, and its outcome (G8)."""

from pydantic import SecretStr

from nod.payments.v1 import payments_pb2 as pb
from nod.payments.v1 import payments_pb2_grpc
from nod_tasks.adapters.enums import to_domain, to_proto
from nod_tasks.domain.checks import PaymentOutcome
from nod_tasks.domain.outside import Payment, PaymentRequest, PaymentState
from nodkit.peers import Peer
from nodkit.timestamps import from_proto
from nodkit.tls import Tls

SERVICES = [pb.DESCRIPTOR.services_by_name["PaymentsService"]]
# The longest reason the payments service keeps.
MAX_REASON = 480


def payment_of(message: pb.Payment) -> Payment:
    return Payment(
        id=message.id,
        task_id=message.task_id,
        state=to_domain(pb.PaymentState, PaymentState, message.state, PaymentState.UNKNOWN),
        merchant_origin=message.merchant_origin,
        amount_minor=message.amount_minor,
        currency=message.currency,
        description=message.description,
        card_item_id=message.card_item_id,
        card_label=message.card_label,
        card_operation_id=message.card_operation_id,
        hosted_payment_origins=tuple(message.hosted_payment_origins),
        started_at=from_proto(message.started_at) if message.HasField("started_at") else None,
    )


class PaymentsPeer:
    def __init__(
        self, address: str, token: SecretStr | None, timeout_s: float, *, tls: Tls | None = None
    ) -> None:
        self._peer = Peer(address, token, timeout_s, SERVICES, name="payments", tls=tls)
        self._stub = self._peer.stub(payments_pb2_grpc.PaymentsServiceStub)

    async def create(self, owner: str, payment: PaymentRequest) -> Payment:
        request = pb.CreatePaymentRequest(
            task_id=payment.task_id,
            merchant_origin=payment.merchant_origin,
            amount_minor=payment.amount_minor,
            currency=payment.currency,
            description=payment.description,
            card_item_id=payment.card_item_id,
            card_label=payment.card_label,
            order_reference=payment.order_reference,
            request_id=payment.request_id,
            hosted_payment_origins=payment.hosted_payment_origins,
        )
        return payment_of((await self._peer.call(self._stub.CreatePayment, request, owner)).payment)

    async def get(self, owner: str, payment_id: str) -> Payment:
        request = pb.GetPaymentRequest(payment_id=payment_id)
        return payment_of((await self._peer.call(self._stub.GetPayment, request, owner)).payment)

    async def start_card_entry(self, owner: str, payment_id: str) -> str:
        """The card entry's operation id (the payment is RUNNING from now)."""
        request = pb.StartCardEntryRequest(payment_id=payment_id)
        return (await self._peer.call(self._stub.StartCardEntry, request, owner)).card_operation_id

    async def record_submitted(self, owner: str, payment_id: str, claim_id: str) -> None:
        request = pb.RecordSubmittedRequest(payment_id=payment_id, claim_id=claim_id)
        await self._peer.call(self._stub.RecordSubmitted, request, owner)

    async def record_uncertain(
        self, owner: str, payment_id: str, claim_id: str | None, reason: str
    ) -> None:
        request = pb.RecordUncertainRequest(
            payment_id=payment_id, claim_id=claim_id or "", reason=reason[:MAX_REASON]
        )
        await self._peer.call(self._stub.RecordUncertain, request, owner)

    async def record_outcome(self, owner: str, payment_id: str, outcome: PaymentOutcome) -> None:
        request = pb.RecordOutcomeRequest(
            payment_id=payment_id, outcome=to_proto(pb.PaymentOutcome, outcome)
        )
        await self._peer.call(self._stub.RecordOutcome, request, owner)

    async def cancel_for_task(self, owner: str, task_id: str, reason: str) -> None:
        request = pb.CancelForTaskRequest(task_id=task_id, reason=reason)
        await self._peer.call(self._stub.CancelForTask, request, owner)

    async def close(self) -> None:
        await self._peer.close()
