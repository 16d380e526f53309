"""What the other services answer, as the tasks service uses it: a claim,
an approval and its execution, a payment. The adapters make these from the
services' replies; the rules and use cases never see a protobuf message."""

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum


class ClaimState(StrEnum):
    RUNNING = "running"
    SUBMITTED = "submitted"
    UNCERTAIN = "uncertain"
    # A state newer than this service: never taken for SUBMITTED.
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Claim:
    id: str
    state: ClaimState
    reason: str = ""


class ApprovalState(StrEnum):
    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"
    CANCELLED = "cancelled"
    EXPIRED = "expired"
    UNKNOWN = "unknown"


class ExecutionState(StrEnum):
    RUNNING = "running"
    DONE = "done"
    NOT_RUN = "not_run"
    FAILED = "failed"
    UNCERTAIN = "uncertain"


@dataclass(frozen=True)
class Approval:
    id: str
    state: ApprovalState
    summary: str
    # None until the yes started the single execution.
    execution: ExecutionState | None = None
    result: str = ""
    reason: str = ""


@dataclass(frozen=True)
class AppRecordPlace:
    """Where an app keeps its own record of what it received."""

    app: str
    execution_id: str
    # A webhook account's status address ("" when it names none); any
    # "{execution_id}" in it is the execution's id.
    status_url: str

    @property
    def url(self) -> str:
        return self.status_url.replace("{execution_id}", self.execution_id)


class PaymentState(StrEnum):
    AWAITING_CONFIRMATION = "awaiting_confirmation"
    CONFIRMED = "confirmed"
    RUNNING = "running"
    SUBMITTED = "submitted"
    UNCERTAIN = "uncertain"
    REFUSED = "refused"
    CANCELLED = "cancelled"
    EXPIRED = "expired"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Payment:
    id: str
    task_id: str
    state: PaymentState
    merchant_origin: str
    amount_minor: int
    currency: str
    description: str
    card_item_id: str
    card_label: str
    # The card entry's operation id, once it started.
    card_operation_id: str = ""
    hosted_payment_origins: tuple[str, ...] = ()
    # When the card entry began (None before it did).
    started_at: datetime | None = None

    def takes_card_on(self, origin: str) -> bool:
        """Whether the person's yes lets the card be entered on a page of `origin`."""
        return origin in (self.merchant_origin, *self.hosted_payment_origins)

    @property
    def prompt(self) -> str:
        """What the person is asked to say yes to."""
        amount = f"{self.amount_minor / 100:.2f} {self.currency}"
        return f"Pay {amount} to {self.merchant_origin} with {self.card_label}: {self.description}"


@dataclass(frozen=True)
class PaymentRequest:
    task_id: str
    merchant_origin: str
    amount_minor: int
    currency: str
    description: str
    card_item_id: str
    card_label: str
    order_reference: str
    request_id: str
    # Hosted payment pages elsewhere than the merchant (G13), as the model named them.
    hosted_payment_origins: tuple[str, ...] = ()


@dataclass(frozen=True)
class Proposal:
    task_id: str
    account_id: str
    action: str
    parameters: dict
    summary: str
    request_id: str


# An entry refused for where its values would go (G13: the top page, the
# frame holding the fields, the submission, outside the value's binding):
# nothing was claimed or typed. The step is not run, with the reason in
# words, and the same call is never made again.
BINDING_REFUSALS = frozenset(
    {
        "PAGE_NOT_BOUND",
        "FRAME_NOT_BOUND",
        "SUBMISSION_NOT_BOUND",
        "CARD_NOT_BOUND",
        "ENTRY_NOT_BOUND",
        "FIELDS_ON_SEVERAL_SITES",
        "SUBMISSION_NOT_WEB",
        # The runner's own look at the fields and the form (G13).
        "WRONG_FIELD_KIND",
        "FIELD_LABELLED_OTHERWISE",
        "FIELD_DISABLED",
        "FIELD_NOT_SHOWN",
        "FIELD_INVISIBLE",
        "FIELD_ZERO_SIZE",
        "FIELD_OFF_SCREEN",
        "FIELD_COVERED",
        "FIELD_TRANSPARENT",
        "SUBMITS_ELSEWHERE",
    }
)


class EntryKind(StrEnum):
    SAVED_LOGIN = "saved_login"
    ONE_TIME_CODE = "one_time_code"
    CARD = "card"
    TYPED_PASSWORD = "typed_password"


@dataclass(frozen=True)
class Entry:
    """A private entry the browser service makes under a claim (G1)."""

    kind: EntryKind
    item_id: str
    # value field -> the page field it goes into (a target)
    fields: dict[str, str]
    submit: str
    operation_id: str
    # Cards: the one-time security code entry released with the card.
    companion_entry_id: str = ""
