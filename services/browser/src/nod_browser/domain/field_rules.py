"""Which page field each private value may go into, and when a field is too
hidden to take one, as data. They run in the page (adapters/field_check.js)
before the claim and again right before each field is filled; the first
rule a field breaks names the refusal (its reason, and the `rule` label of
nod_browser_entry_refusals_total).

What kind of private field an element is comes from private_fields.py's
rules, judged by the element's own looks: the mark the runner itself puts
on an entered field says nothing about what the field is for.

The visibility rules refuse what hides a field from a person (hidden,
display:none, visibility:hidden, zero size, off the page, transparent, or
another element over it: the clickjacking password managers learned to
refuse) without refusing what real sites do: a floating label laid over
its field (a <label for> over it, or anything with pointer-events:none,
which the hit test looks through) and one-time-code inputs drawn as boxes,
including one transparent input laid over drawn boxes (the input-otp
library): a code field alone may be transparent, when it is on the page,
uncovered and focusable.
"""

from dataclasses import asdict, dataclass

from nod_browser.domain.private_fields import (
    CARD_EXPIRY,
    CARD_KINDS,
    CARD_NUMBER,
    CARD_SECURITY_CODE,
    CODE_BOX_ATTRIBUTE,
    ENTERED,
    ONE_TIME_CODE,
    PASSWORD,
    PAYMENT_FORM_SELECTOR,
    RULES,
)

# The rules, each a refusal's reason.
WRONG_FIELD_KIND = "WRONG_FIELD_KIND"
FIELD_LABELLED_OTHERWISE = "FIELD_LABELLED_OTHERWISE"
FIELD_DISABLED = "FIELD_DISABLED"
FIELD_NOT_SHOWN = "FIELD_NOT_SHOWN"
FIELD_INVISIBLE = "FIELD_INVISIBLE"
FIELD_ZERO_SIZE = "FIELD_ZERO_SIZE"
FIELD_OFF_SCREEN = "FIELD_OFF_SCREEN"
FIELD_COVERED = "FIELD_COVERED"
FIELD_TRANSPARENT = "FIELD_TRANSPARENT"
FIELD_GONE = "FIELD_GONE"
# Where the values would go: the submission's destination, checked before the
# claim and at submission, and any request carrying them (request_guard.py).
SUBMITS_ELSEWHERE = "SUBMITS_ELSEWHERE"
VALUES_SENT_ELSEWHERE = "VALUES_SENT_ELSEWHERE"

FIELD_RULES = (
    WRONG_FIELD_KIND,
    FIELD_LABELLED_OTHERWISE,
    FIELD_DISABLED,
    FIELD_NOT_SHOWN,
    FIELD_INVISIBLE,
    FIELD_ZERO_SIZE,
    FIELD_OFF_SCREEN,
    FIELD_COVERED,
    FIELD_TRANSPARENT,
    FIELD_GONE,
)
ALL_RULES = (*FIELD_RULES, SUBMITS_ELSEWHERE, VALUES_SENT_ELSEWHERE)
# What a page may undo by itself in a moment (a form disabled while it checks
# the username, a spinner over it): after the claim, a field breaking one of
# these is looked at again for a little while, as Playwright's fill waits for
# a field to be ready, before the entry stops. A field of the wrong kind, or
# one laid out to be unseen, is not waited for.
PASSING_RULES = frozenset({FIELD_DISABLED, FIELD_COVERED, FIELD_NOT_SHOWN})
PASSING_WAIT_S = 2.0

# What a person reads on a field that says what it is for: its label, and
# its autocomplete token (never its name or id, which only the page's code reads).
USERNAME_WORDS = r"user.?(name|id)|e-?mail|login.?(name|id)|account.?(name|id)|phone|search"
PASSWORD_WORDS = r"pass(word|code|phrase|wort)?\b|secret|\bpin\b|mot de passe|contrase"
CODE_WORDS = r"code|otp|one.?time|verif|\bpin\b|token|2fa|mfa|digit"
EXPIRY_WORDS = r"exp|valid|mm\s*/\s*yy"
EXPIRY_PART_WORDS = r"exp|month|year|\bmm\b|\byy"


@dataclass(frozen=True)
class FieldKind:
    """The fields one value may go into."""

    words: str  # what a person calls it: "a password field"
    tags: tuple[str, ...] = ("input",)
    # An <input>'s type as the browser has it (a missing or unknown one is "text").
    input_types: tuple[str, ...] = ("text",)
    # It is of this kind when one of these holds; none given: any field of
    # its tags and types is.
    looks_like: tuple[str, ...] = ()  # private_fields' reasons
    named: str = ""  # matched (case-insensitive) on its name, id, autocomplete, label
    input_modes: tuple[str, ...] = ()
    any_select: bool = False  # a <select> (whose options are checked on their own)
    # It is not of this kind when it looks like one of these.
    not_like: tuple[str, ...] = ()
    # Nor when a person reads it as this (another field's words) and not as `own_words`.
    labelled_otherwise: str = ""
    own_words: str = ""
    # Whether the visibility rules apply: an expiry's month or year is no
    # secret, and sites often hide a styled select's native one.
    visible: bool = True
    may_be_transparent: bool = False


PASSWORD_FIELD = FieldKind(
    "a password field",
    input_types=("password",),
    not_like=tuple(sorted(CARD_KINDS)),
    labelled_otherwise=USERNAME_WORDS,
    own_words=PASSWORD_WORDS,
)
USERNAME_FIELD = FieldKind(
    "a username or email field",
    input_types=("text", "email", "tel"),
    not_like=(PASSWORD, *sorted(CARD_KINDS)),
    labelled_otherwise=PASSWORD_WORDS,
    own_words=USERNAME_WORDS,
)
HOLDER_NAME_FIELD = FieldKind(
    "a text field for the card holder's name",
    not_like=(PASSWORD, CARD_NUMBER, CARD_EXPIRY, CARD_SECURITY_CODE, ONE_TIME_CODE),
    labelled_otherwise=PASSWORD_WORDS,
)
CARD_NUMBER_FIELD = FieldKind(
    "a card number field",
    input_types=("text", "tel", "number"),
    looks_like=(CARD_NUMBER,),
)
EXPIRY_FIELD = FieldKind(
    "a card expiry field",
    input_types=("text", "tel"),
    looks_like=(CARD_EXPIRY,),
    named=EXPIRY_WORDS,
    not_like=(PASSWORD, CARD_NUMBER, CARD_SECURITY_CODE),
)
EXPIRY_PART_FIELD = FieldKind(
    "a card expiry month or year field",
    tags=("input", "select"),
    input_types=("text", "tel", "number"),
    looks_like=(CARD_EXPIRY,),
    named=EXPIRY_PART_WORDS,
    any_select=True,
    not_like=(PASSWORD, CARD_NUMBER, CARD_SECURITY_CODE),
    visible=False,
)
SECURITY_CODE_FIELD = FieldKind(
    "a card security code field",
    input_types=("text", "tel", "number", "password"),
    looks_like=(CARD_SECURITY_CODE,),
)
ONE_TIME_CODE_FIELD = FieldKind(
    "a one-time code field",
    input_types=("text", "tel", "number", "password"),
    looks_like=(ONE_TIME_CODE,),
    named=CODE_WORDS,
    input_modes=("numeric",),
    not_like=(CARD_NUMBER, CARD_SECURITY_CODE),
    may_be_transparent=True,
)

# Each value field (domain/entry.py's VALUE_FIELDS) and the fields it may go into.
KINDS = {
    "password": PASSWORD_FIELD,
    "username": USERNAME_FIELD,
    "holder_name": HOLDER_NAME_FIELD,
    "number": CARD_NUMBER_FIELD,
    "expiry": EXPIRY_FIELD,
    "expiry_month": EXPIRY_PART_FIELD,
    "expiry_year": EXPIRY_PART_FIELD,
    "security_code": SECURITY_CODE_FIELD,
    "code": ONE_TIME_CODE_FIELD,
    "totp_code": ONE_TIME_CODE_FIELD,
}


@dataclass(frozen=True)
class Visibility:
    # Smaller than this (CSS pixels) either way, a field is not there to see:
    # a "visually hidden" one is 1 px.
    min_size_px: float = 4.0
    # The product of its own and its ancestors' opacity; a form fading in
    # passes well before it is done.
    min_opacity: float = 0.2


VISIBILITY = Visibility()

# What a refusal says after the field's name, by rule; {words}: what the
# value may go into ("a password field").
WHY = {
    WRONG_FIELD_KIND: "this is not {words}, and the value goes only into {words}",
    FIELD_LABELLED_OTHERWISE: (
        "the page labels this field as something else, and the value goes only into {words}"
    ),
    FIELD_DISABLED: "the field does not take typing (disabled, read-only, or it refuses the focus)",
    FIELD_NOT_SHOWN: "the field is not shown on the page",
    FIELD_INVISIBLE: "the field is hidden from view",
    FIELD_ZERO_SIZE: "the field is too small to be seen",
    FIELD_OFF_SCREEN: "the field is placed outside the page, where no one can see it",
    FIELD_COVERED: (
        "something else is shown over the field (a banner, a dialog or another element);"
        " close it, then read the page again"
    ),
    FIELD_TRANSPARENT: "the field is transparent, so no one could see what goes into it",
    FIELD_GONE: "the field is no longer on the page",
}


def refusal_text(field: str, rule: str) -> str:
    """The words for a field that breaks `rule` ("fields.password: ..."); they
    name no value and quote nothing of the page."""
    kind = KINDS.get(field.removeprefix("fields."))
    words = kind.words if kind is not None else "a field meant for it"
    return f"{field}: " + WHY[rule].format(words=words)


def metric_rule(rule: str) -> str:
    """The `rule` label a refusal is counted under (one of ALL_RULES, lower case)."""
    return rule.lower() if rule in ALL_RULES else "other"


def rules_for_the_page() -> dict:
    """The rules as field_check.js takes them (JSON). private_fields' rules
    come grouped by the kind they name, the runner's own mark left out."""
    by_kind: dict[str, list[dict]] = {}
    for rule in RULES:
        if rule.reason != ENTERED:
            by_kind.setdefault(rule.reason, []).append(asdict(rule))
    return {
        "kinds": {name: asdict(kind) for name, kind in KINDS.items()},
        "privateRules": by_kind,
        "paymentForm": PAYMENT_FORM_SELECTOR,
        "codeBoxAttribute": CODE_BOX_ATTRIBUTE,
        "visibility": asdict(VISIBILITY),
        "rules": {
            "wrongKind": WRONG_FIELD_KIND,
            "labelledOtherwise": FIELD_LABELLED_OTHERWISE,
            "disabled": FIELD_DISABLED,
            "notShown": FIELD_NOT_SHOWN,
            "invisible": FIELD_INVISIBLE,
            "zeroSize": FIELD_ZERO_SIZE,
            "offScreen": FIELD_OFF_SCREEN,
            "covered": FIELD_COVERED,
            "transparent": FIELD_TRANSPARENT,
            "gone": FIELD_GONE,
        },
    }
