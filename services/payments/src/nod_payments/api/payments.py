"""PaymentsService: proto <-> the payments use cases."""

from nod.payments.v1 import payments_pb2 as pb
from nod.payments.v1 import payments_pb2_grpc
from nod_payments.api.convert import (
    DECISIONS,
    OUTCOMES,
    STATES,
    event_to_pb,
    limits_to_pb,
    payment_to_pb,
)
from nod_payments.app.card_entry import CardEntry
from nod_payments.app.confirmation import Confirmation
from nod_payments.app.creation import Creation
from nod_payments.app.limits import LimitsApp
from nod_payments.app.payments import Payments
from nod_payments.domain.payments import PaymentState
from nod_payments.domain.requests import PaymentRequest
from nodkit import listing
from nodkit.identity import current_user


class PaymentsServicer(payments_pb2_grpc.PaymentsServiceServicer):
    def __init__(
        self,
        *,
        creation: Creation,
        confirmation: Confirmation,
        card_entry: CardEntry,
        payments: Payments,
        limits: LimitsApp,
    ) -> None:
        self._creation = creation
        self._confirmation = confirmation
        self._card_entry = card_entry
        self._payments = payments
        self._limits = limits

    async def CreatePayment(self, request, context) -> pb.CreatePaymentResponse:
        record = await self._creation.create(
            current_user(),
            PaymentRequest(
                request_id=request.request_id,
                task_id=request.task_id,
                merchant_origin=request.merchant_origin,
                amount_minor=request.amount_minor,
                currency=request.currency,
                description=request.description,
                card_item_id=request.card_item_id,
                card_label=request.card_label,
                order_reference=request.order_reference,
                repeat_of_payment_id=request.repeat_of_payment_id,
                hosted_payment_origins=tuple(request.hosted_payment_origins),
            ),
        )
        return pb.CreatePaymentResponse(payment=payment_to_pb(record))

    async def ConfirmPayment(self, request, context) -> pb.ConfirmPaymentResponse:
        owner = current_user()
        decision = DECISIONS.domain("decision", request.decision)
        record = await self._confirmation.confirm(owner, request.payment_id, decision)
        return pb.ConfirmPaymentResponse(payment=payment_to_pb(record))

    async def StartCardEntry(self, request, context) -> pb.StartCardEntryResponse:
        record = await self._card_entry.start(current_user(), request.payment_id)
        return pb.StartCardEntryResponse(
            payment=payment_to_pb(record), card_operation_id=record.card_operation_id or ""
        )

    async def RecordSubmitted(self, request, context) -> pb.RecordSubmittedResponse:
        record = await self._card_entry.finish(
            current_user(), request.payment_id, PaymentState.SUBMITTED, claim_id=request.claim_id
        )
        return pb.RecordSubmittedResponse(payment=payment_to_pb(record))

    async def RecordUncertain(self, request, context) -> pb.RecordUncertainResponse:
        record = await self._card_entry.finish(
            current_user(),
            request.payment_id,
            PaymentState.UNCERTAIN,
            claim_id=request.claim_id,
            reason=request.reason,
        )
        return pb.RecordUncertainResponse(payment=payment_to_pb(record))

    async def RecordOutcome(self, request, context) -> pb.RecordOutcomeResponse:
        owner = current_user()
        outcome = OUTCOMES.domain("outcome", request.outcome)
        record = await self._card_entry.record_outcome(owner, request.payment_id, outcome)
        return pb.RecordOutcomeResponse(payment=payment_to_pb(record))

    async def GetPayment(self, request, context) -> pb.GetPaymentResponse:
        record = await self._payments.get(current_user(), request.payment_id)
        return pb.GetPaymentResponse(payment=payment_to_pb(record))

    async def ListPayments(self, request, context) -> pb.ListPaymentsResponse:
        page = await self._payments.list(
            current_user(),
            task_id=request.task_id,
            state=STATES.optional("state", request.state),
            page=listing.page_request(request.page_size, request.page_token),
        )
        return pb.ListPaymentsResponse(
            payments=[payment_to_pb(r) for r in page.items], next_page_token=page.next_token
        )

    async def ListPaymentEvents(self, request, context) -> pb.ListPaymentEventsResponse:
        rows = await self._payments.events(current_user(), request.payment_id)
        return pb.ListPaymentEventsResponse(events=[event_to_pb(row) for row in rows])

    async def CancelForTask(self, request, context) -> pb.CancelForTaskResponse:
        result = await self._payments.cancel_for_task(
            current_user(), request.task_id, request.reason
        )
        return pb.CancelForTaskResponse(
            cancelled=[payment_to_pb(r) for r in result.cancelled],
            left_running=[payment_to_pb(r) for r in result.left_running],
        )

    async def WatchPayment(self, request, context):
        async for record in self._payments.watch(current_user(), request.payment_id):
            yield pb.WatchPaymentResponse(payment=payment_to_pb(record))

    async def SetLimits(self, request, context) -> pb.SetLimitsResponse:
        limits = await self._limits.set(
            current_user(), request.max_single_minor, request.max_daily_minor, request.currency
        )
        return pb.SetLimitsResponse(limits=limits_to_pb(limits))

    async def GetLimits(self, request, context) -> pb.GetLimitsResponse:
        limits = await self._limits.get(current_user())
        return pb.GetLimitsResponse(limits=limits_to_pb(limits))
