"""Claim rules (G2, G3), in plain Python.

The database enforces them (a unique key per operation, updates that only
match RUNNING rows held by the caller); this module says what a refused
change means and checks requests before anything is written.
"""

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Protocol, TypeVar

from nod_claims.domain.bindings import Destination, check_destination, saved_login_binding
from nodkit import validation
from nodkit.errors import AlreadyExists, FailedPrecondition, InvalidArgument, NotFound


class ClaimState(StrEnum):
    RUNNING = "running"
    SUBMITTED = "submitted"
    UNCERTAIN = "uncertain"


class EntryKind(StrEnum):
    SAVED_LOGIN = "saved_login"
    ONE_TIME_CODE = "one_time_code"
    CARD = "card"
    TYPED_PASSWORD = "typed_password"
    SECURITY_CODE = "security_code"


class CheckResult(StrEnum):
    WORKED = "worked"
    DID_NOT_WORK = "did_not_work"
    UNCLEAR = "unclear"


# Saved in the vault and kept after use; the others are one-time entries.
SAVED_KINDS = frozenset({EntryKind.SAVED_LOGIN, EntryKind.CARD})
ONE_TIME_KINDS = frozenset(
    {EntryKind.ONE_TIME_CODE, EntryKind.TYPED_PASSWORD, EntryKind.SECURITY_CODE}
)
MAX_REASON = 500


class SavedItem(Protocol):
    @property
    def kind(self) -> "EntryKind": ...

    @property
    def origin(self) -> str | None: ...

    @property
    def equivalent_origins(self) -> tuple[str, ...]: ...


ItemT = TypeVar("ItemT", bound=SavedItem)


@dataclass(frozen=True)
class ClaimRequest:
    operation_id: str
    kind: EntryKind
    item_id: str
    origin: str
    task_id: str
    holder: str
    companion_entry_id: str | None = None
    # The runner will type a code from the saved login's TOTP seed.
    totp_code: bool = False
    # The frame holding the fields (None: the top page's; once checked,
    # always set) and where the submission goes (None: nowhere pressed).
    frame_origin: str | None = None
    submit_origin: str | None = None

    @property
    def destination(self) -> Destination:
        return Destination(self.origin, self.frame_origin or self.origin, self.submit_origin)


@dataclass(frozen=True)
class ClaimRecord:
    id: str
    operation_id: str
    kind: EntryKind
    item_id: str
    companion_entry_id: str | None
    origin: str
    task_id: str
    holder: str
    state: ClaimState
    check: CheckResult | None
    reason: str
    created_at: datetime
    updated_at: datetime
    # Claims made before G13 recorded the top page only: their frame is it.
    frame_origin: str = ""
    submit_origin: str | None = None

    def same_operation(self, asked: "ClaimRequest | OperationQuery") -> bool:
        """Same id and the same parameters: a resend, not a new operation.
        The holder is not a parameter: a second runner asking gets the answer
        too. Where the values go (top page, frame, submission) is compared
        when the caller names it (a lookup by a runner whose page has moved
        on since does not)."""
        return (
            self.kind == asked.kind
            and self.item_id == asked.item_id
            and self.task_id == asked.task_id
            and self.companion_entry_id == asked.companion_entry_id
            and (
                not isinstance(asked, ClaimRequest)
                or (
                    self.origin == asked.origin
                    and (self.frame_origin or self.origin) == asked.destination.frame_origin
                    and self.submit_origin == asked.submit_origin
                )
            )
        )


@dataclass(frozen=True)
class OperationQuery:
    """A runner asking whether an operation was claimed already (FindClaim)."""

    operation_id: str
    kind: EntryKind
    item_id: str
    task_id: str
    companion_entry_id: str | None = None


def check_claim_request(request: ClaimRequest) -> ClaimRequest:
    """Normalises a request, or raises InvalidArgument naming the field."""
    if request.companion_entry_id is not None and request.kind != EntryKind.CARD:
        raise InvalidArgument("companion_entry_id", "only a card entry takes a companion entry")
    if request.totp_code and request.kind != EntryKind.SAVED_LOGIN:
        raise InvalidArgument("totp_code", "only a saved login has a TOTP seed")
    origin = validation.origin("origin", request.origin)
    return ClaimRequest(
        operation_id=validation.printable_id("operation_id", request.operation_id),
        kind=request.kind,
        item_id=validation.uuid_id("item_id", request.item_id),
        origin=origin,
        task_id=validation.printable_id("task_id", request.task_id),
        holder=validation.printable_id("holder", request.holder),
        companion_entry_id=request.companion_entry_id,
        totp_code=request.totp_code,
        frame_origin=_optional_origin("frame_origin", request.frame_origin) or origin,
        submit_origin=_optional_origin("submit_origin", request.submit_origin),
    )


def _optional_origin(field: str, value: str | None) -> str | None:
    return validation.origin(field, value) if value else None


def check_saved_item(item: ItemT | None, request: ClaimRequest) -> ItemT:
    """The saved item exists, is the person's and of that kind, and a login
    is only released for its own sites (G13: domain.bindings)."""
    if item is None or item.kind != request.kind:
        raise NotFound("item_id names no saved item of that kind", reason="ITEM_NOT_FOUND")
    if request.kind == EntryKind.SAVED_LOGIN:
        check_destination(
            saved_login_binding(item.origin or "", item.equivalent_origins), request.destination
        )
    return item


def check_operation_query(query: OperationQuery) -> OperationQuery:
    return OperationQuery(
        operation_id=validation.printable_id("operation_id", query.operation_id),
        kind=query.kind,
        item_id=validation.uuid_id("item_id", query.item_id),
        task_id=validation.printable_id("task_id", query.task_id),
        companion_entry_id=query.companion_entry_id,
    )


def existing_claim_answer(
    existing: ClaimRecord, asked: ClaimRequest | OperationQuery
) -> ClaimRecord:
    """A claim for this operation exists: answer with it (no secret), unless
    the caller reuses the id for something else. The one reuse rule, for
    Claim and for FindClaim alike."""
    if not existing.same_operation(asked):
        raise AlreadyExists(
            "operation_id was already used for a different entry; use a new operation id",
            reason="OPERATION_ID_REUSED",
        )
    return existing


def explain_refused_transition(record: ClaimRecord, target: ClaimState, holder: str) -> ClaimRecord:
    """Called when `UPDATE ... WHERE state = 'running' AND holder = :holder`
    matched nothing. Repeating the transition just made is answered with the
    current state; anything else is refused."""
    if record.holder != holder:
        raise FailedPrecondition(
            "only the runner holding the claim can change it", reason="NOT_HOLDER"
        )
    if record.state == target:
        return record
    raise FailedPrecondition(
        f"the claim is already {record.state.value} and can't change",
        reason="CLAIM_FINAL",
        state=record.state.value,
    )


def explain_refused_check(record: ClaimRecord, check: CheckResult) -> ClaimRecord:
    if record.state != ClaimState.SUBMITTED:
        raise FailedPrecondition(
            "a check is recorded only on a submitted claim",
            reason="NOT_SUBMITTED",
            state=record.state.value,
        )
    if record.check == check:
        return record
    raise FailedPrecondition(
        "a different check was already recorded for this claim", reason="CHECK_ALREADY_RECORDED"
    )


def check_reason(reason: str) -> str:
    return validation.text("reason", reason, max_length=MAX_REASON)
