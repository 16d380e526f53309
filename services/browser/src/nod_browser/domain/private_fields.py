"""What makes a form field private, as data. The page reader never returns
such a field's value and TypeText refuses it. The rules are tried in order
and the first that matches names the reason; they run in the page
(adapters/private_field.js), on the field's name (or id), type,
autocomplete and label, and on its form.

A reason is the field's private kind as a read shows it (Field.private_kind),
except CARD_OTHER (a card's holder name or type: masked, no kind of its own).
"""

from dataclasses import asdict, dataclass

# Set on every field EnterPrivate fills, before the first keystroke.
ENTERED_ATTRIBUTE = "data-nod-private"
# Set by the page reader on every box of a one-time code split over boxes
# (its value: the ref of the first box, which names the whole code).
CODE_BOX_ATTRIBUTE = "data-nod-box-of"
# A form holding any of these is a payment form: its "number" is a card number.
PAYMENT_FORM_SELECTOR = '[autocomplete^="cc-"], [name*="card" i], [name*="cvc" i], [name*="cvv" i]'

PASSWORD = "password"
CARD_NUMBER = "card_number"
CARD_EXPIRY = "card_expiry"
CARD_SECURITY_CODE = "card_security_code"
CARD_OTHER = "card"
ONE_TIME_CODE = "one_time_code"
ENTERED = "entered"
CARD_KINDS = frozenset({CARD_NUMBER, CARD_EXPIRY, CARD_SECURITY_CODE, CARD_OTHER})


@dataclass(frozen=True)
class PrivateFieldRule:
    reason: str
    input_types: tuple[str, ...] = ()
    autocomplete: tuple[str, ...] = ()
    autocomplete_prefixes: tuple[str, ...] = ()
    # Regular expressions, matched case-insensitively against the name (or id).
    name_pattern: str = ""
    name_pattern_in_payment_form: str = ""
    # Matched case-insensitively against its label, aria-label and
    # placeholder: hosted card fields often carry nothing else.
    label_pattern: str = ""
    attribute: str = ""


RULES = (
    PrivateFieldRule(PASSWORD, input_types=("password",)),
    PrivateFieldRule(
        CARD_NUMBER,
        autocomplete=("cc-number",),
        name_pattern=r"card.?num|cc.?num|^pan$",
        name_pattern_in_payment_form=r"number",
        label_pattern=r"card.?(number|no\b)",
    ),
    PrivateFieldRule(
        CARD_EXPIRY,
        autocomplete=("cc-exp", "cc-exp-month", "cc-exp-year"),
        name_pattern=r"(card|cc).?exp",
        name_pattern_in_payment_form=r"exp",
        label_pattern=r"expiry date|expiration date",
    ),
    PrivateFieldRule(
        CARD_SECURITY_CODE,
        autocomplete=("cc-csc",),
        name_pattern=r"cvc|cvv|csc|ccv|security.?code",
        label_pattern=r"\b(cvc|cvv|csc|ccv)\b|security code",
    ),
    PrivateFieldRule(CARD_OTHER, autocomplete_prefixes=("cc-",), name_pattern=r"card|^cc|cc[-_]"),
    PrivateFieldRule(
        ONE_TIME_CODE,
        autocomplete=("one-time-code",),
        name_pattern=r"otp|one.?time|totp|^code$",
        attribute=CODE_BOX_ATTRIBUTE,
    ),
    PrivateFieldRule(ENTERED, attribute=ENTERED_ATTRIBUTE),
    PrivateFieldRule(PASSWORD, name_pattern=r"pass|secret"),
)


def private_kind(reason: str) -> str:
    """The kind a read shows for a rule's reason ("" for none)."""
    return "" if reason == CARD_OTHER else reason


def rules_for_the_page() -> dict:
    """The rules as the page script takes them (JSON)."""
    return {
        "rules": [asdict(rule) for rule in RULES],
        "paymentForm": PAYMENT_FORM_SELECTOR,
        "cardKinds": sorted(CARD_KINDS),
    }
