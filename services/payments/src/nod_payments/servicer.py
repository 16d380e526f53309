"""gRPC <-> domain translation only: each method names the person, makes
one app call and builds the reply."""

from nod.payments.v1 import payments_pb2 as pb
from nod.payments.v1 import payments_pb2_grpc
from nod_payments.apps import Apps
from nod_payments.convert import (
    DECISIONS,
    OUTCOMES,
    STATES,
    event_to_pb,
    limits_to_pb,
    payment_to_pb,
)
from nod_payments.domain import PaymentState
from nod_payments.orders import PaymentRequest
from nodkit import pagination, validation
from nodkit.identity import current_user


class PaymentsServicer(payments_pb2_grpc.PaymentsServiceServicer):
    def __init__(self, apps: Apps) -> None:
        self._apps = apps

    async def CreatePayment(self, request, context) -> pb.CreatePaymentResponse:
        record = await self._apps.creation.create(
            current_user(),
            PaymentRequest(
                task_id=request.task_id,
                merchant_origin=request.merchant_origin,
                amount_minor=request.amount_minor,
                currency=request.currency,
                description=request.description,
                card_item_id=request.card_item_id,
                card_label=request.card_label,
                order_reference=request.order_reference,
                repeat_of_payment_id=request.repeat_of_payment_id,
            ),
        )
        return pb.CreatePaymentResponse(payment=payment_to_pb(record))

    async def ConfirmPayment(self, request, context) -> pb.ConfirmPaymentResponse:
        owner = current_user()
        decision = validation.enum_member("decision", request.decision, DECISIONS)
        record = await self._apps.confirmation.confirm(owner, request.payment_id, decision)
        return pb.ConfirmPaymentResponse(payment=payment_to_pb(record))

    async def StartCardEntry(self, request, context) -> pb.StartCardEntryResponse:
        record = await self._apps.card_entry.start(current_user(), request.payment_id)
        return pb.StartCardEntryResponse(
            payment=payment_to_pb(record), card_operation_id=record.card_operation_id
        )

    async def RecordSubmitted(self, request, context) -> pb.RecordSubmittedResponse:
        record = await self._apps.card_entry.finish(
            current_user(), request.payment_id, PaymentState.SUBMITTED, claim_id=request.claim_id
        )
        return pb.RecordSubmittedResponse(payment=payment_to_pb(record))

    async def RecordUncertain(self, request, context) -> pb.RecordUncertainResponse:
        record = await self._apps.card_entry.finish(
            current_user(),
            request.payment_id,
            PaymentState.UNCERTAIN,
            claim_id=request.claim_id,
            reason=request.reason,
        )
        return pb.RecordUncertainResponse(payment=payment_to_pb(record))

    async def RecordOutcome(self, request, context) -> pb.RecordOutcomeResponse:
        owner = current_user()
        outcome = validation.enum_member("outcome", request.outcome, OUTCOMES)
        record = await self._apps.card_entry.record_outcome(owner, request.payment_id, outcome)
        return pb.RecordOutcomeResponse(payment=payment_to_pb(record))

    async def GetPayment(self, request, context) -> pb.GetPaymentResponse:
        record = await self._apps.payments.get(current_user(), request.payment_id)
        return pb.GetPaymentResponse(payment=payment_to_pb(record))

    async def ListPayments(self, request, context) -> pb.ListPaymentsResponse:
        owner = current_user()
        limit = validation.page_size(request.page_size)
        records = await self._apps.payments.list(
            owner,
            task_id=validation.printable_id("task_id", request.task_id)
            if request.task_id
            else None,
            state=validation.enum_member("state", request.state, STATES) if request.state else None,
            after=pagination.decode(request.page_token),
            limit=limit + 1,
        )
        records, token = pagination.page(records, limit)
        return pb.ListPaymentsResponse(
            payments=[payment_to_pb(r) for r in records], next_page_token=token
        )

    async def ListPaymentEvents(self, request, context) -> pb.ListPaymentEventsResponse:
        rows = await self._apps.payments.events(current_user(), request.payment_id)
        return pb.ListPaymentEventsResponse(events=[event_to_pb(row) for row in rows])

    async def CancelForTask(self, request, context) -> pb.CancelForTaskResponse:
        result = await self._apps.payments.cancel_for_task(current_user(), request.task_id)
        return pb.CancelForTaskResponse(
            cancelled=[payment_to_pb(r) for r in result.cancelled],
            left_running=[payment_to_pb(r) for r in result.left_running],
        )

    async def WatchPayment(self, request, context):
        async for record in self._apps.payments.watch(current_user(), request.payment_id):
            yield pb.WatchPaymentResponse(payment=payment_to_pb(record))

    async def SetLimits(self, request, context) -> pb.SetLimitsResponse:
        limits = await self._apps.limits.set(
            current_user(), request.max_single_minor, request.max_daily_minor, request.currency
        )
        return pb.SetLimitsResponse(limits=limits_to_pb(limits))

    async def GetLimits(self, request, context) -> pb.GetLimitsResponse:
        limits = await self._apps.limits.get(current_user())
        return pb.GetLimitsResponse(limits=limits_to_pb(limits))
