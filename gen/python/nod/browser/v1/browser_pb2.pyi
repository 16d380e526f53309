import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from nod.claims.v1 import claims_pb2 as _claims_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Session(_message.Message):
    __slots__ = ("session_id", "task_id", "url", "created_at")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    task_id: str
    url: str
    created_at: _timestamp_pb2.Timestamp
    def __init__(self, session_id: _Optional[str] = ..., task_id: _Optional[str] = ..., url: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class Field(_message.Message):
    __slots__ = ("ref", "name", "type", "label", "placeholder", "value", "masked", "filled", "form_ref", "autocomplete")
    REF_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    PLACEHOLDER_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    MASKED_FIELD_NUMBER: _ClassVar[int]
    FILLED_FIELD_NUMBER: _ClassVar[int]
    FORM_REF_FIELD_NUMBER: _ClassVar[int]
    AUTOCOMPLETE_FIELD_NUMBER: _ClassVar[int]
    ref: str
    name: str
    type: str
    label: str
    placeholder: str
    value: str
    masked: bool
    filled: bool
    form_ref: str
    autocomplete: str
    def __init__(self, ref: _Optional[str] = ..., name: _Optional[str] = ..., type: _Optional[str] = ..., label: _Optional[str] = ..., placeholder: _Optional[str] = ..., value: _Optional[str] = ..., masked: _Optional[bool] = ..., filled: _Optional[bool] = ..., form_ref: _Optional[str] = ..., autocomplete: _Optional[str] = ...) -> None: ...

class Control(_message.Message):
    __slots__ = ("ref", "kind", "text", "href", "form_ref")
    REF_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    HREF_FIELD_NUMBER: _ClassVar[int]
    FORM_REF_FIELD_NUMBER: _ClassVar[int]
    ref: str
    kind: str
    text: str
    href: str
    form_ref: str
    def __init__(self, ref: _Optional[str] = ..., kind: _Optional[str] = ..., text: _Optional[str] = ..., href: _Optional[str] = ..., form_ref: _Optional[str] = ...) -> None: ...

class Form(_message.Message):
    __slots__ = ("ref", "name", "action", "method")
    REF_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    ref: str
    name: str
    action: str
    method: str
    def __init__(self, ref: _Optional[str] = ..., name: _Optional[str] = ..., action: _Optional[str] = ..., method: _Optional[str] = ...) -> None: ...

class Notice(_message.Message):
    __slots__ = ("kind", "text")
    KIND_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    kind: str
    text: str
    def __init__(self, kind: _Optional[str] = ..., text: _Optional[str] = ...) -> None: ...

class Page(_message.Message):
    __slots__ = ("url", "title", "text", "text_truncated", "forms", "fields", "controls", "notices", "login_form_present", "code_form_present", "payment_form_present")
    URL_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    TEXT_TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    FORMS_FIELD_NUMBER: _ClassVar[int]
    FIELDS_FIELD_NUMBER: _ClassVar[int]
    CONTROLS_FIELD_NUMBER: _ClassVar[int]
    NOTICES_FIELD_NUMBER: _ClassVar[int]
    LOGIN_FORM_PRESENT_FIELD_NUMBER: _ClassVar[int]
    CODE_FORM_PRESENT_FIELD_NUMBER: _ClassVar[int]
    PAYMENT_FORM_PRESENT_FIELD_NUMBER: _ClassVar[int]
    url: str
    title: str
    text: str
    text_truncated: bool
    forms: _containers.RepeatedCompositeFieldContainer[Form]
    fields: _containers.RepeatedCompositeFieldContainer[Field]
    controls: _containers.RepeatedCompositeFieldContainer[Control]
    notices: _containers.RepeatedCompositeFieldContainer[Notice]
    login_form_present: bool
    code_form_present: bool
    payment_form_present: bool
    def __init__(self, url: _Optional[str] = ..., title: _Optional[str] = ..., text: _Optional[str] = ..., text_truncated: _Optional[bool] = ..., forms: _Optional[_Iterable[_Union[Form, _Mapping]]] = ..., fields: _Optional[_Iterable[_Union[Field, _Mapping]]] = ..., controls: _Optional[_Iterable[_Union[Control, _Mapping]]] = ..., notices: _Optional[_Iterable[_Union[Notice, _Mapping]]] = ..., login_form_present: _Optional[bool] = ..., code_form_present: _Optional[bool] = ..., payment_form_present: _Optional[bool] = ...) -> None: ...

class OpenSessionRequest(_message.Message):
    __slots__ = ("task_id",)
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    def __init__(self, task_id: _Optional[str] = ...) -> None: ...

class OpenSessionResponse(_message.Message):
    __slots__ = ("session_id",)
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    def __init__(self, session_id: _Optional[str] = ...) -> None: ...

class NavigateRequest(_message.Message):
    __slots__ = ("session_id", "url")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    url: str
    def __init__(self, session_id: _Optional[str] = ..., url: _Optional[str] = ...) -> None: ...

class NavigateResponse(_message.Message):
    __slots__ = ("page",)
    PAGE_FIELD_NUMBER: _ClassVar[int]
    page: Page
    def __init__(self, page: _Optional[_Union[Page, _Mapping]] = ...) -> None: ...

class ReadPageRequest(_message.Message):
    __slots__ = ("session_id",)
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    def __init__(self, session_id: _Optional[str] = ...) -> None: ...

class ReadPageResponse(_message.Message):
    __slots__ = ("page",)
    PAGE_FIELD_NUMBER: _ClassVar[int]
    page: Page
    def __init__(self, page: _Optional[_Union[Page, _Mapping]] = ...) -> None: ...

class ClickRequest(_message.Message):
    __slots__ = ("session_id", "target")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    target: str
    def __init__(self, session_id: _Optional[str] = ..., target: _Optional[str] = ...) -> None: ...

class ClickResponse(_message.Message):
    __slots__ = ("page",)
    PAGE_FIELD_NUMBER: _ClassVar[int]
    page: Page
    def __init__(self, page: _Optional[_Union[Page, _Mapping]] = ...) -> None: ...

class TypeTextRequest(_message.Message):
    __slots__ = ("session_id", "target", "text")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    target: str
    text: str
    def __init__(self, session_id: _Optional[str] = ..., target: _Optional[str] = ..., text: _Optional[str] = ...) -> None: ...

class TypeTextResponse(_message.Message):
    __slots__ = ("page",)
    PAGE_FIELD_NUMBER: _ClassVar[int]
    page: Page
    def __init__(self, page: _Optional[_Union[Page, _Mapping]] = ...) -> None: ...

class EnterPrivateRequest(_message.Message):
    __slots__ = ("session_id", "operation_id", "kind", "item_id", "fields", "submit", "companion_entry_id")
    class FieldsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    OPERATION_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    ITEM_ID_FIELD_NUMBER: _ClassVar[int]
    FIELDS_FIELD_NUMBER: _ClassVar[int]
    SUBMIT_FIELD_NUMBER: _ClassVar[int]
    COMPANION_ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    operation_id: str
    kind: _claims_pb2.EntryKind
    item_id: str
    fields: _containers.ScalarMap[str, str]
    submit: str
    companion_entry_id: str
    def __init__(self, session_id: _Optional[str] = ..., operation_id: _Optional[str] = ..., kind: _Optional[_Union[_claims_pb2.EntryKind, str]] = ..., item_id: _Optional[str] = ..., fields: _Optional[_Mapping[str, str]] = ..., submit: _Optional[str] = ..., companion_entry_id: _Optional[str] = ...) -> None: ...

class EnterPrivateResponse(_message.Message):
    __slots__ = ("claim", "entered")
    CLAIM_FIELD_NUMBER: _ClassVar[int]
    ENTERED_FIELD_NUMBER: _ClassVar[int]
    claim: _claims_pb2.Claim
    entered: bool
    def __init__(self, claim: _Optional[_Union[_claims_pb2.Claim, _Mapping]] = ..., entered: _Optional[bool] = ...) -> None: ...

class CloseSessionRequest(_message.Message):
    __slots__ = ("session_id",)
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    def __init__(self, session_id: _Optional[str] = ...) -> None: ...

class CloseSessionResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class CloseTaskSessionsRequest(_message.Message):
    __slots__ = ("task_id",)
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    def __init__(self, task_id: _Optional[str] = ...) -> None: ...

class CloseTaskSessionsResponse(_message.Message):
    __slots__ = ("closed",)
    CLOSED_FIELD_NUMBER: _ClassVar[int]
    closed: int
    def __init__(self, closed: _Optional[int] = ...) -> None: ...

class ListSessionsRequest(_message.Message):
    __slots__ = ("task_id",)
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    def __init__(self, task_id: _Optional[str] = ...) -> None: ...

class ListSessionsResponse(_message.Message):
    __slots__ = ("sessions",)
    SESSIONS_FIELD_NUMBER: _ClassVar[int]
    sessions: _containers.RepeatedCompositeFieldContainer[Session]
    def __init__(self, sessions: _Optional[_Iterable[_Union[Session, _Mapping]]] = ...) -> None: ...
