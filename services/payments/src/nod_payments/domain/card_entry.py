"""The card entry's rules (plain Python): where the card may go, bound with
the claims service before it can be claimed; the claim a report names must
be this payment's card entry, and its reason must be storable."""

from dataclasses import dataclass
from enum import StrEnum

from nod_payments.domain.card_numbers import mask_card_numbers
from nod_payments.domain.payments import PaymentRecord, PaymentState
from nodkit.errors import FailedPrecondition, InvalidArgument, NotFound

MAX_REASON = 500
DEFAULT_UNCERTAIN_REASON = "the card entry was interrupted before a definite end"
CARD = "card"


class ClaimState(StrEnum):
    RUNNING = "running"
    SUBMITTED = "submitted"
    UNCERTAIN = "uncertain"


@dataclass(frozen=True)
class CardClaim:
    """A claim as the claims service showed it to the person it belongs to."""

    id: str
    operation_id: str
    # The claims service's entry kind, e.g. "card" or "saved_login".
    kind: str
    item_id: str
    # None: a state this service does not know.
    state: ClaimState | None


@dataclass(frozen=True)
class CardEntryBinding:
    """Where the card of one payment may be entered (G13): the merchant the
    person said yes to, and the hosted payment pages the yes named. The
    claims service grants the card claim under card_operation_id only there."""

    operation_id: str
    item_id: str
    task_id: str
    merchant_origin: str
    hosted_payment_origins: tuple[str, ...]


def card_entry_binding(payment: PaymentRecord, operation_id: str) -> CardEntryBinding:
    """Made from the payment as the person said yes to it, never from the
    caller: a resend binds the same, and the claims service answers the first."""
    return CardEntryBinding(
        operation_id=operation_id,
        item_id=payment.card_item_id,
        task_id=payment.task_id,
        merchant_origin=payment.merchant_origin,
        hosted_payment_origins=payment.hosted_payment_origins,
    )


def check_card_claim(
    claim: CardClaim | None, claim_id: str, payment: PaymentRecord, target: PaymentState
) -> None:
    """The claim a RUNNING payment's end names: the person's own (the claims
    service shows no one else's), a card claim under this payment's card
    operation id for the card the person said yes to, and, for SUBMITTED,
    submitted. Anything else is refused and the payment is left as it is."""
    about = {"payment_id": payment.id, "claim_id": claim_id}
    if claim is None:
        raise NotFound("no such claim for this person", reason="CLAIM_NOT_FOUND", **about)
    if (
        claim.kind != CARD
        or claim.operation_id != payment.card_operation_id
        or claim.item_id != payment.card_item_id
    ):
        raise FailedPrecondition(
            "the claim is not this payment's card entry", reason="CLAIM_MISMATCH", **about
        )
    if target == PaymentState.SUBMITTED and claim.state != ClaimState.SUBMITTED:
        raise FailedPrecondition(
            "the card claim was not submitted: record the payment uncertain instead",
            reason="CLAIM_NOT_SUBMITTED",
            claim_state=claim.state.value if claim.state else "unknown",
            **about,
        )


def cancel_reason(text: str) -> str:
    """Why a task's payments were cancelled, stored as uncertain_reason does."""
    if "\x00" in text:
        raise InvalidArgument("reason", "must not contain NUL characters")
    return mask_card_numbers(text.strip())[:MAX_REASON].strip() or "the task ended"


def uncertain_reason(text: str) -> str:
    """An UNCERTAIN report is never lost for its wording: a card number in it
    is masked (before it is cut to length, so no cut can leave a part of one
    unmasked) and it is bounded. Only a NUL is refused, since no text column
    can hold one; the refusal is definite and names the field, so the caller
    resends (nodkit's interceptor will refuse NUL for every call)."""
    if "\x00" in text:
        raise InvalidArgument("reason", "must not contain NUL characters")
    return mask_card_numbers(text.strip())[:MAX_REASON].strip() or DEFAULT_UNCERTAIN_REASON
