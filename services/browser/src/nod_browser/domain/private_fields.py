"""What makes a form field private, as data. The page reader never returns
such a field's value and TypeText refuses it. The rules are tried in order
and the first that matches names the reason; they run in the page
(adapters/private_field.js), on the field's name (or id), type and
autocomplete, and on its form."""

from dataclasses import asdict, dataclass

# Set on every field EnterPrivate fills, before the first keystroke.
ENTERED_ATTRIBUTE = "data-nod-private"
# A form holding any of these is a payment form: its "number" is a card number.
PAYMENT_FORM_SELECTOR = '[autocomplete^="cc-"], [name*="card" i], [name*="cvc" i], [name*="cvv" i]'


@dataclass(frozen=True)
class PrivateFieldRule:
    reason: str
    input_types: tuple[str, ...] = ()
    autocomplete: tuple[str, ...] = ()
    autocomplete_prefixes: tuple[str, ...] = ()
    # Regular expressions, matched case-insensitively against the name (or id).
    name_pattern: str = ""
    name_pattern_in_payment_form: str = ""
    attribute: str = ""


RULES = (
    PrivateFieldRule("password", input_types=("password",)),
    PrivateFieldRule(
        "card",
        autocomplete_prefixes=("cc-",),
        name_pattern=r"card|^cc|cc[-_]|cvc|cvv|csc",
        name_pattern_in_payment_form="number",
    ),
    PrivateFieldRule(
        "code", autocomplete=("one-time-code",), name_pattern=r"otp|one.?time|totp|^code$"
    ),
    PrivateFieldRule("entered", attribute=ENTERED_ATTRIBUTE),
    PrivateFieldRule("name", name_pattern=r"pass|secret|security.?code"),
)


def rules_for_the_page() -> dict:
    """The rules as the page script takes them (JSON)."""
    return {"rules": [asdict(rule) for rule in RULES], "paymentForm": PAYMENT_FORM_SELECTOR}
