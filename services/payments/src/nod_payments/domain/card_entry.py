"""What a report about the card entry may say (plain Python)."""

from nod_payments.domain.card_numbers import mask_card_numbers
from nodkit.errors import InvalidArgument

MAX_REASON = 500
DEFAULT_UNCERTAIN_REASON = "the card entry was interrupted before a definite end"


def uncertain_reason(text: str) -> str:
    """An UNCERTAIN report is never lost for its wording: a card number in it
    is masked (before it is cut to length, so no cut can leave a part of one
    unmasked) and it is bounded. Only a NUL is refused, since no text column
    can hold one; the refusal is definite and names the field, so the caller
    resends (nodkit's interceptor will refuse NUL for every call)."""
    if "\x00" in text:
        raise InvalidArgument("reason", "must not contain NUL characters")
    return mask_card_numbers(text.strip())[:MAX_REASON].strip() or DEFAULT_UNCERTAIN_REASON
