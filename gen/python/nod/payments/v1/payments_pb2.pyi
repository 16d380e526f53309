import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class PaymentState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PAYMENT_STATE_UNSPECIFIED: _ClassVar[PaymentState]
    PAYMENT_STATE_AWAITING_CONFIRMATION: _ClassVar[PaymentState]
    PAYMENT_STATE_CONFIRMED: _ClassVar[PaymentState]
    PAYMENT_STATE_RUNNING: _ClassVar[PaymentState]
    PAYMENT_STATE_SUBMITTED: _ClassVar[PaymentState]
    PAYMENT_STATE_UNCERTAIN: _ClassVar[PaymentState]
    PAYMENT_STATE_REFUSED: _ClassVar[PaymentState]
    PAYMENT_STATE_CANCELLED: _ClassVar[PaymentState]
    PAYMENT_STATE_EXPIRED: _ClassVar[PaymentState]

class PaymentOutcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PAYMENT_OUTCOME_UNSPECIFIED: _ClassVar[PaymentOutcome]
    PAYMENT_OUTCOME_PAID: _ClassVar[PaymentOutcome]
    PAYMENT_OUTCOME_DECLINED: _ClassVar[PaymentOutcome]
    PAYMENT_OUTCOME_UNKNOWN: _ClassVar[PaymentOutcome]

class Decision(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DECISION_UNSPECIFIED: _ClassVar[Decision]
    DECISION_YES: _ClassVar[Decision]
    DECISION_NO: _ClassVar[Decision]
PAYMENT_STATE_UNSPECIFIED: PaymentState
PAYMENT_STATE_AWAITING_CONFIRMATION: PaymentState
PAYMENT_STATE_CONFIRMED: PaymentState
PAYMENT_STATE_RUNNING: PaymentState
PAYMENT_STATE_SUBMITTED: PaymentState
PAYMENT_STATE_UNCERTAIN: PaymentState
PAYMENT_STATE_REFUSED: PaymentState
PAYMENT_STATE_CANCELLED: PaymentState
PAYMENT_STATE_EXPIRED: PaymentState
PAYMENT_OUTCOME_UNSPECIFIED: PaymentOutcome
PAYMENT_OUTCOME_PAID: PaymentOutcome
PAYMENT_OUTCOME_DECLINED: PaymentOutcome
PAYMENT_OUTCOME_UNKNOWN: PaymentOutcome
DECISION_UNSPECIFIED: Decision
DECISION_YES: Decision
DECISION_NO: Decision

class Payment(_message.Message):
    __slots__ = ("id", "task_id", "merchant_origin", "amount_minor", "currency", "description", "card_item_id", "card_label", "order_reference", "repeat_of_payment_id", "state", "outcome", "card_operation_id", "claim_id", "reason", "created_at", "updated_at", "expires_at", "confirmed_at", "started_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    MERCHANT_ORIGIN_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_MINOR_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    CARD_ITEM_ID_FIELD_NUMBER: _ClassVar[int]
    CARD_LABEL_FIELD_NUMBER: _ClassVar[int]
    ORDER_REFERENCE_FIELD_NUMBER: _ClassVar[int]
    REPEAT_OF_PAYMENT_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    CARD_OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    CLAIM_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    CONFIRMED_AT_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    task_id: str
    merchant_origin: str
    amount_minor: int
    currency: str
    description: str
    card_item_id: str
    card_label: str
    order_reference: str
    repeat_of_payment_id: str
    state: PaymentState
    outcome: PaymentOutcome
    card_operation_id: str
    claim_id: str
    reason: str
    created_at: _timestamp_pb2.Timestamp
    updated_at: _timestamp_pb2.Timestamp
    expires_at: _timestamp_pb2.Timestamp
    confirmed_at: _timestamp_pb2.Timestamp
    started_at: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[str] = ..., task_id: _Optional[str] = ..., merchant_origin: _Optional[str] = ..., amount_minor: _Optional[int] = ..., currency: _Optional[str] = ..., description: _Optional[str] = ..., card_item_id: _Optional[str] = ..., card_label: _Optional[str] = ..., order_reference: _Optional[str] = ..., repeat_of_payment_id: _Optional[str] = ..., state: _Optional[_Union[PaymentState, str]] = ..., outcome: _Optional[_Union[PaymentOutcome, str]] = ..., card_operation_id: _Optional[str] = ..., claim_id: _Optional[str] = ..., reason: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., confirmed_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., started_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class CreatePaymentRequest(_message.Message):
    __slots__ = ("task_id", "merchant_origin", "amount_minor", "currency", "description", "card_item_id", "card_label", "order_reference", "repeat_of_payment_id")
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    MERCHANT_ORIGIN_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_MINOR_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    CARD_ITEM_ID_FIELD_NUMBER: _ClassVar[int]
    CARD_LABEL_FIELD_NUMBER: _ClassVar[int]
    ORDER_REFERENCE_FIELD_NUMBER: _ClassVar[int]
    REPEAT_OF_PAYMENT_ID_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    merchant_origin: str
    amount_minor: int
    currency: str
    description: str
    card_item_id: str
    card_label: str
    order_reference: str
    repeat_of_payment_id: str
    def __init__(self, task_id: _Optional[str] = ..., merchant_origin: _Optional[str] = ..., amount_minor: _Optional[int] = ..., currency: _Optional[str] = ..., description: _Optional[str] = ..., card_item_id: _Optional[str] = ..., card_label: _Optional[str] = ..., order_reference: _Optional[str] = ..., repeat_of_payment_id: _Optional[str] = ...) -> None: ...

class CreatePaymentResponse(_message.Message):
    __slots__ = ("payment",)
    PAYMENT_FIELD_NUMBER: _ClassVar[int]
    payment: Payment
    def __init__(self, payment: _Optional[_Union[Payment, _Mapping]] = ...) -> None: ...

class ConfirmPaymentRequest(_message.Message):
    __slots__ = ("payment_id", "decision")
    PAYMENT_ID_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    payment_id: str
    decision: Decision
    def __init__(self, payment_id: _Optional[str] = ..., decision: _Optional[_Union[Decision, str]] = ...) -> None: ...

class ConfirmPaymentResponse(_message.Message):
    __slots__ = ("payment",)
    PAYMENT_FIELD_NUMBER: _ClassVar[int]
    payment: Payment
    def __init__(self, payment: _Optional[_Union[Payment, _Mapping]] = ...) -> None: ...

class StartCardEntryRequest(_message.Message):
    __slots__ = ("payment_id",)
    PAYMENT_ID_FIELD_NUMBER: _ClassVar[int]
    payment_id: str
    def __init__(self, payment_id: _Optional[str] = ...) -> None: ...

class StartCardEntryResponse(_message.Message):
    __slots__ = ("payment", "card_operation_id")
    PAYMENT_FIELD_NUMBER: _ClassVar[int]
    CARD_OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    payment: Payment
    card_operation_id: str
    def __init__(self, payment: _Optional[_Union[Payment, _Mapping]] = ..., card_operation_id: _Optional[str] = ...) -> None: ...

class RecordSubmittedRequest(_message.Message):
    __slots__ = ("payment_id", "claim_id")
    PAYMENT_ID_FIELD_NUMBER: _ClassVar[int]
    CLAIM_ID_FIELD_NUMBER: _ClassVar[int]
    payment_id: str
    claim_id: str
    def __init__(self, payment_id: _Optional[str] = ..., claim_id: _Optional[str] = ...) -> None: ...

class RecordSubmittedResponse(_message.Message):
    __slots__ = ("payment",)
    PAYMENT_FIELD_NUMBER: _ClassVar[int]
    payment: Payment
    def __init__(self, payment: _Optional[_Union[Payment, _Mapping]] = ...) -> None: ...

class RecordUncertainRequest(_message.Message):
    __slots__ = ("payment_id", "reason", "claim_id")
    PAYMENT_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    CLAIM_ID_FIELD_NUMBER: _ClassVar[int]
    payment_id: str
    reason: str
    claim_id: str
    def __init__(self, payment_id: _Optional[str] = ..., reason: _Optional[str] = ..., claim_id: _Optional[str] = ...) -> None: ...

class RecordUncertainResponse(_message.Message):
    __slots__ = ("payment",)
    PAYMENT_FIELD_NUMBER: _ClassVar[int]
    payment: Payment
    def __init__(self, payment: _Optional[_Union[Payment, _Mapping]] = ...) -> None: ...

class RecordOutcomeRequest(_message.Message):
    __slots__ = ("payment_id", "outcome")
    PAYMENT_ID_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    payment_id: str
    outcome: PaymentOutcome
    def __init__(self, payment_id: _Optional[str] = ..., outcome: _Optional[_Union[PaymentOutcome, str]] = ...) -> None: ...

class RecordOutcomeResponse(_message.Message):
    __slots__ = ("payment",)
    PAYMENT_FIELD_NUMBER: _ClassVar[int]
    payment: Payment
    def __init__(self, payment: _Optional[_Union[Payment, _Mapping]] = ...) -> None: ...

class GetPaymentRequest(_message.Message):
    __slots__ = ("payment_id",)
    PAYMENT_ID_FIELD_NUMBER: _ClassVar[int]
    payment_id: str
    def __init__(self, payment_id: _Optional[str] = ...) -> None: ...

class GetPaymentResponse(_message.Message):
    __slots__ = ("payment",)
    PAYMENT_FIELD_NUMBER: _ClassVar[int]
    payment: Payment
    def __init__(self, payment: _Optional[_Union[Payment, _Mapping]] = ...) -> None: ...

class ListPaymentsRequest(_message.Message):
    __slots__ = ("task_id", "state", "page_size", "page_token")
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    state: PaymentState
    page_size: int
    page_token: str
    def __init__(self, task_id: _Optional[str] = ..., state: _Optional[_Union[PaymentState, str]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListPaymentsResponse(_message.Message):
    __slots__ = ("payments", "next_page_token")
    PAYMENTS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    payments: _containers.RepeatedCompositeFieldContainer[Payment]
    next_page_token: str
    def __init__(self, payments: _Optional[_Iterable[_Union[Payment, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class CancelForTaskRequest(_message.Message):
    __slots__ = ("task_id",)
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    def __init__(self, task_id: _Optional[str] = ...) -> None: ...

class CancelForTaskResponse(_message.Message):
    __slots__ = ("cancelled", "left_running")
    CANCELLED_FIELD_NUMBER: _ClassVar[int]
    LEFT_RUNNING_FIELD_NUMBER: _ClassVar[int]
    cancelled: _containers.RepeatedCompositeFieldContainer[Payment]
    left_running: _containers.RepeatedCompositeFieldContainer[Payment]
    def __init__(self, cancelled: _Optional[_Iterable[_Union[Payment, _Mapping]]] = ..., left_running: _Optional[_Iterable[_Union[Payment, _Mapping]]] = ...) -> None: ...

class WatchPaymentRequest(_message.Message):
    __slots__ = ("payment_id",)
    PAYMENT_ID_FIELD_NUMBER: _ClassVar[int]
    payment_id: str
    def __init__(self, payment_id: _Optional[str] = ...) -> None: ...

class WatchPaymentResponse(_message.Message):
    __slots__ = ("payment",)
    PAYMENT_FIELD_NUMBER: _ClassVar[int]
    payment: Payment
    def __init__(self, payment: _Optional[_Union[Payment, _Mapping]] = ...) -> None: ...

class PaymentEvent(_message.Message):
    __slots__ = ("payment_id", "from_state", "to_state", "actor", "reason", "at")
    PAYMENT_ID_FIELD_NUMBER: _ClassVar[int]
    FROM_STATE_FIELD_NUMBER: _ClassVar[int]
    TO_STATE_FIELD_NUMBER: _ClassVar[int]
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    payment_id: str
    from_state: PaymentState
    to_state: PaymentState
    actor: str
    reason: str
    at: _timestamp_pb2.Timestamp
    def __init__(self, payment_id: _Optional[str] = ..., from_state: _Optional[_Union[PaymentState, str]] = ..., to_state: _Optional[_Union[PaymentState, str]] = ..., actor: _Optional[str] = ..., reason: _Optional[str] = ..., at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ListPaymentEventsRequest(_message.Message):
    __slots__ = ("payment_id",)
    PAYMENT_ID_FIELD_NUMBER: _ClassVar[int]
    payment_id: str
    def __init__(self, payment_id: _Optional[str] = ...) -> None: ...

class ListPaymentEventsResponse(_message.Message):
    __slots__ = ("events",)
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[PaymentEvent]
    def __init__(self, events: _Optional[_Iterable[_Union[PaymentEvent, _Mapping]]] = ...) -> None: ...

class PaymentLimits(_message.Message):
    __slots__ = ("max_single_minor", "max_daily_minor", "currency", "updated_at")
    MAX_SINGLE_MINOR_FIELD_NUMBER: _ClassVar[int]
    MAX_DAILY_MINOR_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    max_single_minor: int
    max_daily_minor: int
    currency: str
    updated_at: _timestamp_pb2.Timestamp
    def __init__(self, max_single_minor: _Optional[int] = ..., max_daily_minor: _Optional[int] = ..., currency: _Optional[str] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class SetLimitsRequest(_message.Message):
    __slots__ = ("max_single_minor", "max_daily_minor", "currency")
    MAX_SINGLE_MINOR_FIELD_NUMBER: _ClassVar[int]
    MAX_DAILY_MINOR_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    max_single_minor: int
    max_daily_minor: int
    currency: str
    def __init__(self, max_single_minor: _Optional[int] = ..., max_daily_minor: _Optional[int] = ..., currency: _Optional[str] = ...) -> None: ...

class SetLimitsResponse(_message.Message):
    __slots__ = ("limits",)
    LIMITS_FIELD_NUMBER: _ClassVar[int]
    limits: PaymentLimits
    def __init__(self, limits: _Optional[_Union[PaymentLimits, _Mapping]] = ...) -> None: ...

class GetLimitsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetLimitsResponse(_message.Message):
    __slots__ = ("limits",)
    LIMITS_FIELD_NUMBER: _ClassVar[int]
    limits: PaymentLimits
    def __init__(self, limits: _Optional[_Union[PaymentLimits, _Mapping]] = ...) -> None: ...
