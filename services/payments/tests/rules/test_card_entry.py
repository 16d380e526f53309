"""The card entry (G13): where the card may go is taken from the payment the
person said yes to; the claim a RUNNING payment's end names must be this
payment's card entry (and submitted, for SUBMITTED); the reason a payment
ends uncertain or cancelled is kept masked, bounded and never empty."""

import dataclasses

import pytest

from nod_payments.domain.card_entry import (
    CARD,
    DEFAULT_UNCERTAIN_REASON,
    MAX_REASON,
    CardClaim,
    CardEntryBinding,
    ClaimState,
    cancel_reason,
    card_entry_binding,
    check_card_claim,
    uncertain_reason,
)
from nod_payments.domain.card_numbers import MASK
from nod_payments.domain.payments import PaymentState, card_operation_id
from nodkit.errors import FailedPrecondition, InvalidArgument, NotFound

from .records import CARD_ITEM, SHOP, payment

RUNNING = payment(PaymentState.RUNNING, hosted_payment_origins=("https://pay.example",))
OPERATION = card_operation_id(RUNNING.id)
SUBMITTED_CLAIM = CardClaim("claim-1", OPERATION, CARD, CARD_ITEM, ClaimState.SUBMITTED)


# --- where the card may go -------------------------------------------------


def test_the_binding_is_made_from_the_payment_the_person_said_yes_to():
    assert card_entry_binding(RUNNING, OPERATION) == CardEntryBinding(
        operation_id=OPERATION,
        item_id=CARD_ITEM,
        task_id=RUNNING.task_id,
        merchant_origin=SHOP,
        hosted_payment_origins=("https://pay.example",),
    )


# --- the claim a payment's end names -------------------------------------


def test_a_submitted_card_claim_of_this_payment_ends_it_either_way():
    check_card_claim(SUBMITTED_CLAIM, "claim-1", RUNNING, PaymentState.SUBMITTED)
    check_card_claim(SUBMITTED_CLAIM, "claim-1", RUNNING, PaymentState.UNCERTAIN)


def test_a_claim_the_person_cant_see_is_not_found():
    with pytest.raises(NotFound) as refused:
        check_card_claim(None, "claim-9", RUNNING, PaymentState.SUBMITTED)
    assert refused.value.reason == "CLAIM_NOT_FOUND"
    assert refused.value.metadata == {"payment_id": RUNNING.id, "claim_id": "claim-9"}


@pytest.mark.parametrize(
    "claim",
    [
        dataclasses.replace(SUBMITTED_CLAIM, kind="saved_login"),
        dataclasses.replace(SUBMITTED_CLAIM, operation_id=card_operation_id("another-payment")),
        dataclasses.replace(SUBMITTED_CLAIM, item_id="0b7d4b52-93a1-4c1e-8a8d-3f1f0e0c9a11"),
    ],
    ids=["another kind", "another payment's operation", "another card"],
)
@pytest.mark.parametrize("target", [PaymentState.SUBMITTED, PaymentState.UNCERTAIN])
def test_a_claim_that_is_not_this_payments_card_entry_is_refused(claim, target):
    with pytest.raises(FailedPrecondition) as refused:
        check_card_claim(claim, "claim-1", RUNNING, target)
    assert refused.value.reason == "CLAIM_MISMATCH"
    assert refused.value.metadata["payment_id"] == RUNNING.id


@pytest.mark.parametrize(
    ("state", "shown"),
    [(ClaimState.RUNNING, "running"), (ClaimState.UNCERTAIN, "uncertain"), (None, "unknown")],
)
def test_only_a_submitted_claim_makes_a_payment_submitted(state, shown):
    claim = dataclasses.replace(SUBMITTED_CLAIM, state=state)
    with pytest.raises(FailedPrecondition) as refused:
        check_card_claim(claim, "claim-1", RUNNING, PaymentState.SUBMITTED)
    assert refused.value.reason == "CLAIM_NOT_SUBMITTED"
    assert refused.value.metadata["claim_state"] == shown
    # The same claim may still end the payment uncertain.
    check_card_claim(claim, "claim-1", RUNNING, PaymentState.UNCERTAIN)


# --- the reason kept for an uncertain or cancelled payment -----------------


@pytest.mark.parametrize("kept", [uncertain_reason, cancel_reason])
def test_a_reason_with_a_nul_is_refused_naming_the_field(kept):
    with pytest.raises(InvalidArgument) as refused:
        kept("cut off\x00")
    assert refused.value.field == "reason"


def test_an_empty_reason_is_given_a_wording_of_its_own():
    assert uncertain_reason("   ") == DEFAULT_UNCERTAIN_REASON
    assert cancel_reason("") == "the task ended"


def test_a_reason_is_stripped_and_its_card_number_masked():
    assert uncertain_reason("  the shop showed 4242 4242 4242 4242\n") == (
        f"the shop showed {MASK}"
    )
    assert cancel_reason(" stopped at 4242424242424242 ") == f"stopped at {MASK}"


def test_a_long_reason_is_cut_to_its_bound():
    assert uncertain_reason("x" * (MAX_REASON + 50)) == "x" * MAX_REASON
    assert uncertain_reason("x" * MAX_REASON) == "x" * MAX_REASON
    assert len(cancel_reason("y" * (MAX_REASON * 2))) == MAX_REASON
    # A cut that leaves a space at the end drops it.
    assert uncertain_reason("x" * (MAX_REASON - 1) + "  tail") == "x" * (MAX_REASON - 1)


def test_a_card_number_across_the_cut_is_masked_before_it_so_no_part_of_it_is_kept():
    text = "x" * (MAX_REASON - 10) + " 4242424242424242 and more"
    kept = uncertain_reason(text)
    assert len(kept) <= MAX_REASON
    assert "4242" not in kept and not any(char.isdigit() for char in kept)
