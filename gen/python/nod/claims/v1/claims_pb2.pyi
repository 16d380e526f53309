import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EntryKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ENTRY_KIND_UNSPECIFIED: _ClassVar[EntryKind]
    ENTRY_KIND_SAVED_LOGIN: _ClassVar[EntryKind]
    ENTRY_KIND_ONE_TIME_CODE: _ClassVar[EntryKind]
    ENTRY_KIND_CARD: _ClassVar[EntryKind]
    ENTRY_KIND_TYPED_PASSWORD: _ClassVar[EntryKind]
    ENTRY_KIND_SECURITY_CODE: _ClassVar[EntryKind]

class ClaimState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CLAIM_STATE_UNSPECIFIED: _ClassVar[ClaimState]
    CLAIM_STATE_RUNNING: _ClassVar[ClaimState]
    CLAIM_STATE_SUBMITTED: _ClassVar[ClaimState]
    CLAIM_STATE_UNCERTAIN: _ClassVar[ClaimState]

class CheckResult(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CHECK_RESULT_UNSPECIFIED: _ClassVar[CheckResult]
    CHECK_RESULT_WORKED: _ClassVar[CheckResult]
    CHECK_RESULT_DID_NOT_WORK: _ClassVar[CheckResult]
    CHECK_RESULT_UNCLEAR: _ClassVar[CheckResult]
ENTRY_KIND_UNSPECIFIED: EntryKind
ENTRY_KIND_SAVED_LOGIN: EntryKind
ENTRY_KIND_ONE_TIME_CODE: EntryKind
ENTRY_KIND_CARD: EntryKind
ENTRY_KIND_TYPED_PASSWORD: EntryKind
ENTRY_KIND_SECURITY_CODE: EntryKind
CLAIM_STATE_UNSPECIFIED: ClaimState
CLAIM_STATE_RUNNING: ClaimState
CLAIM_STATE_SUBMITTED: ClaimState
CLAIM_STATE_UNCERTAIN: ClaimState
CHECK_RESULT_UNSPECIFIED: CheckResult
CHECK_RESULT_WORKED: CheckResult
CHECK_RESULT_DID_NOT_WORK: CheckResult
CHECK_RESULT_UNCLEAR: CheckResult

class Claim(_message.Message):
    __slots__ = ("id", "operation_id", "kind", "item_id", "origin", "task_id", "holder", "state", "check", "reason", "companion_entry_id", "created_at", "updated_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    ITEM_ID_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    HOLDER_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    CHECK_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    COMPANION_ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    operation_id: str
    kind: EntryKind
    item_id: str
    origin: str
    task_id: str
    holder: str
    state: ClaimState
    check: CheckResult
    reason: str
    companion_entry_id: str
    created_at: _timestamp_pb2.Timestamp
    updated_at: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[str] = ..., operation_id: _Optional[str] = ..., kind: _Optional[_Union[EntryKind, str]] = ..., item_id: _Optional[str] = ..., origin: _Optional[str] = ..., task_id: _Optional[str] = ..., holder: _Optional[str] = ..., state: _Optional[_Union[ClaimState, str]] = ..., check: _Optional[_Union[CheckResult, str]] = ..., reason: _Optional[str] = ..., companion_entry_id: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ClaimRequest(_message.Message):
    __slots__ = ("operation_id", "kind", "item_id", "origin", "task_id", "holder", "companion_entry_id")
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    ITEM_ID_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    HOLDER_FIELD_NUMBER: _ClassVar[int]
    COMPANION_ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    operation_id: str
    kind: EntryKind
    item_id: str
    origin: str
    task_id: str
    holder: str
    companion_entry_id: str
    def __init__(self, operation_id: _Optional[str] = ..., kind: _Optional[_Union[EntryKind, str]] = ..., item_id: _Optional[str] = ..., origin: _Optional[str] = ..., task_id: _Optional[str] = ..., holder: _Optional[str] = ..., companion_entry_id: _Optional[str] = ...) -> None: ...

class ClaimResponse(_message.Message):
    __slots__ = ("granted", "claim", "secret_fields")
    class SecretFieldsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    GRANTED_FIELD_NUMBER: _ClassVar[int]
    CLAIM_FIELD_NUMBER: _ClassVar[int]
    SECRET_FIELDS_FIELD_NUMBER: _ClassVar[int]
    granted: bool
    claim: Claim
    secret_fields: _containers.ScalarMap[str, str]
    def __init__(self, granted: _Optional[bool] = ..., claim: _Optional[_Union[Claim, _Mapping]] = ..., secret_fields: _Optional[_Mapping[str, str]] = ...) -> None: ...

class MarkSubmittedRequest(_message.Message):
    __slots__ = ("claim_id", "holder")
    CLAIM_ID_FIELD_NUMBER: _ClassVar[int]
    HOLDER_FIELD_NUMBER: _ClassVar[int]
    claim_id: str
    holder: str
    def __init__(self, claim_id: _Optional[str] = ..., holder: _Optional[str] = ...) -> None: ...

class MarkSubmittedResponse(_message.Message):
    __slots__ = ("claim",)
    CLAIM_FIELD_NUMBER: _ClassVar[int]
    claim: Claim
    def __init__(self, claim: _Optional[_Union[Claim, _Mapping]] = ...) -> None: ...

class MarkUncertainRequest(_message.Message):
    __slots__ = ("claim_id", "holder", "reason")
    CLAIM_ID_FIELD_NUMBER: _ClassVar[int]
    HOLDER_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    claim_id: str
    holder: str
    reason: str
    def __init__(self, claim_id: _Optional[str] = ..., holder: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class MarkUncertainResponse(_message.Message):
    __slots__ = ("claim",)
    CLAIM_FIELD_NUMBER: _ClassVar[int]
    claim: Claim
    def __init__(self, claim: _Optional[_Union[Claim, _Mapping]] = ...) -> None: ...

class RecordCheckRequest(_message.Message):
    __slots__ = ("claim_id", "check")
    CLAIM_ID_FIELD_NUMBER: _ClassVar[int]
    CHECK_FIELD_NUMBER: _ClassVar[int]
    claim_id: str
    check: CheckResult
    def __init__(self, claim_id: _Optional[str] = ..., check: _Optional[_Union[CheckResult, str]] = ...) -> None: ...

class RecordCheckResponse(_message.Message):
    __slots__ = ("claim",)
    CLAIM_FIELD_NUMBER: _ClassVar[int]
    claim: Claim
    def __init__(self, claim: _Optional[_Union[Claim, _Mapping]] = ...) -> None: ...

class GetClaimRequest(_message.Message):
    __slots__ = ("claim_id",)
    CLAIM_ID_FIELD_NUMBER: _ClassVar[int]
    claim_id: str
    def __init__(self, claim_id: _Optional[str] = ...) -> None: ...

class GetClaimResponse(_message.Message):
    __slots__ = ("claim",)
    CLAIM_FIELD_NUMBER: _ClassVar[int]
    claim: Claim
    def __init__(self, claim: _Optional[_Union[Claim, _Mapping]] = ...) -> None: ...

class ListClaimsRequest(_message.Message):
    __slots__ = ("task_id", "state", "page_size", "page_token")
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    state: ClaimState
    page_size: int
    page_token: str
    def __init__(self, task_id: _Optional[str] = ..., state: _Optional[_Union[ClaimState, str]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListClaimsResponse(_message.Message):
    __slots__ = ("claims", "next_page_token")
    CLAIMS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    claims: _containers.RepeatedCompositeFieldContainer[Claim]
    next_page_token: str
    def __init__(self, claims: _Optional[_Iterable[_Union[Claim, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class RenewHolderRequest(_message.Message):
    __slots__ = ("holder",)
    HOLDER_FIELD_NUMBER: _ClassVar[int]
    holder: str
    def __init__(self, holder: _Optional[str] = ...) -> None: ...

class RenewHolderResponse(_message.Message):
    __slots__ = ("lease_expires_at", "running_claims")
    LEASE_EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    RUNNING_CLAIMS_FIELD_NUMBER: _ClassVar[int]
    lease_expires_at: _timestamp_pb2.Timestamp
    running_claims: int
    def __init__(self, lease_expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., running_claims: _Optional[int] = ...) -> None: ...

class ReleaseHolderRequest(_message.Message):
    __slots__ = ("holder", "reason")
    HOLDER_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    holder: str
    reason: str
    def __init__(self, holder: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class ReleaseHolderResponse(_message.Message):
    __slots__ = ("claims", "lease_expires_at")
    CLAIMS_FIELD_NUMBER: _ClassVar[int]
    LEASE_EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    claims: _containers.RepeatedCompositeFieldContainer[Claim]
    lease_expires_at: _timestamp_pb2.Timestamp
    def __init__(self, claims: _Optional[_Iterable[_Union[Claim, _Mapping]]] = ..., lease_expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ClaimEvent(_message.Message):
    __slots__ = ("claim_id", "from_state", "to_state", "actor", "reason", "at")
    CLAIM_ID_FIELD_NUMBER: _ClassVar[int]
    FROM_STATE_FIELD_NUMBER: _ClassVar[int]
    TO_STATE_FIELD_NUMBER: _ClassVar[int]
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    claim_id: str
    from_state: ClaimState
    to_state: ClaimState
    actor: str
    reason: str
    at: _timestamp_pb2.Timestamp
    def __init__(self, claim_id: _Optional[str] = ..., from_state: _Optional[_Union[ClaimState, str]] = ..., to_state: _Optional[_Union[ClaimState, str]] = ..., actor: _Optional[str] = ..., reason: _Optional[str] = ..., at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ListClaimEventsRequest(_message.Message):
    __slots__ = ("claim_id",)
    CLAIM_ID_FIELD_NUMBER: _ClassVar[int]
    claim_id: str
    def __init__(self, claim_id: _Optional[str] = ...) -> None: ...

class ListClaimEventsResponse(_message.Message):
    __slots__ = ("events",)
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[ClaimEvent]
    def __init__(self, events: _Optional[_Iterable[_Union[ClaimEvent, _Mapping]]] = ...) -> None: ...

class VaultItem(_message.Message):
    __slots__ = ("id", "kind", "label", "origin", "fields", "created_at", "updated_at")
    class FieldsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    FIELDS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    kind: EntryKind
    label: str
    origin: str
    fields: _containers.ScalarMap[str, str]
    created_at: _timestamp_pb2.Timestamp
    updated_at: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[str] = ..., kind: _Optional[_Union[EntryKind, str]] = ..., label: _Optional[str] = ..., origin: _Optional[str] = ..., fields: _Optional[_Mapping[str, str]] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class PutItemRequest(_message.Message):
    __slots__ = ("item",)
    ITEM_FIELD_NUMBER: _ClassVar[int]
    item: VaultItem
    def __init__(self, item: _Optional[_Union[VaultItem, _Mapping]] = ...) -> None: ...

class PutItemResponse(_message.Message):
    __slots__ = ("item",)
    ITEM_FIELD_NUMBER: _ClassVar[int]
    item: VaultItem
    def __init__(self, item: _Optional[_Union[VaultItem, _Mapping]] = ...) -> None: ...

class ListItemsRequest(_message.Message):
    __slots__ = ("kind",)
    KIND_FIELD_NUMBER: _ClassVar[int]
    kind: EntryKind
    def __init__(self, kind: _Optional[_Union[EntryKind, str]] = ...) -> None: ...

class ListItemsResponse(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[VaultItem]
    def __init__(self, items: _Optional[_Iterable[_Union[VaultItem, _Mapping]]] = ...) -> None: ...

class DeleteItemRequest(_message.Message):
    __slots__ = ("item_id",)
    ITEM_ID_FIELD_NUMBER: _ClassVar[int]
    item_id: str
    def __init__(self, item_id: _Optional[str] = ...) -> None: ...

class DeleteItemResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class PutPrivateEntryRequest(_message.Message):
    __slots__ = ("task_id", "kind", "fields")
    class FieldsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    FIELDS_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    kind: EntryKind
    fields: _containers.ScalarMap[str, str]
    def __init__(self, task_id: _Optional[str] = ..., kind: _Optional[_Union[EntryKind, str]] = ..., fields: _Optional[_Mapping[str, str]] = ...) -> None: ...

class PutPrivateEntryResponse(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class DiscardPrivateEntriesRequest(_message.Message):
    __slots__ = ("task_id",)
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    def __init__(self, task_id: _Optional[str] = ...) -> None: ...

class DiscardPrivateEntriesResponse(_message.Message):
    __slots__ = ("discarded",)
    DISCARDED_FIELD_NUMBER: _ClassVar[int]
    discarded: int
    def __init__(self, discarded: _Optional[int] = ...) -> None: ...
