"""Vault rules: which fields each kind of value has, how they are checked,
and how they are shown masked. Plain Python; values are never logged."""

import base64
import binascii
import re
from dataclasses import dataclass
from datetime import datetime

from nod_claims.domain.bindings import check_equivalent_origins
from nod_claims.domain.claims import EntryKind
from nodkit import validation
from nodkit.cards import digits_of, luhn_valid
from nodkit.errors import InvalidArgument

MAX_FIELD_LENGTH = 1024
MAX_LABEL_LENGTH = 200
DOTS = "••••••••"
MIN_SEED_BITS = 128


@dataclass(frozen=True)
class FieldRules:
    required: frozenset[str]
    optional: frozenset[str] = frozenset()


FIELDS = {
    EntryKind.SAVED_LOGIN: FieldRules(
        frozenset({"username", "password"}), frozenset({"totp_seed"})
    ),
    EntryKind.CARD: FieldRules(frozenset({"number", "expiry"}), frozenset({"holder_name"})),
    EntryKind.ONE_TIME_CODE: FieldRules(frozenset({"code"})),
    EntryKind.TYPED_PASSWORD: FieldRules(frozenset({"password"}), frozenset({"username"})),
    EntryKind.SECURITY_CODE: FieldRules(frozenset({"security_code"})),
}
SECURITY_CODE_NAMES = frozenset({"security_code", "cvc", "cvv", "cvv2", "csc"})
# Fields `mask` shows as they were typed.
SHOWN_AS_TYPED = frozenset({"expiry", "holder_name"})


def _check_value(kind: EntryKind, name: str, value: str) -> str:
    where = f"fields.{name}"
    if not value:
        raise InvalidArgument(where, "must not be empty")
    if len(value) > MAX_FIELD_LENGTH or "\x00" in value:
        raise InvalidArgument(where, f"must be at most {MAX_FIELD_LENGTH} characters, without NUL")
    if name == "number":
        digits = digits_of(value)
        if not digits.isdigit() or not 12 <= len(digits) <= 19 or not luhn_valid(digits):
            raise InvalidArgument(where, "is not a valid card number")
        return digits
    if name == "expiry" and not re.fullmatch(r"(0[1-9]|1[0-2])/(\d{2}|\d{4})", value):
        raise InvalidArgument(where, "must be MM/YY")
    if name == "security_code" and not re.fullmatch(r"\d{3,4}", value):
        raise InvalidArgument(where, "must be 3 or 4 digits")
    if name == "code" and not re.fullmatch(r"[0-9A-Za-z-]{3,12}", value):
        raise InvalidArgument(where, "must be 3-12 letters or digits")
    if name == "totp_seed":
        return _totp_seed(where, value)
    if name in SHOWN_AS_TYPED:
        # Shown unmasked wherever the card is listed, as a label is.
        return validation.no_card_number(where, value)
    return value


def _totp_seed(where: str, value: str) -> str:
    """A base32 seed of at least MIN_SEED_BITS: shorter ones are refused by
    one-time-code libraries (and are weak), so one would fail only at entry."""
    seed = value.replace(" ", "").upper()
    try:
        decoded = base64.b32decode(seed + "=" * (-len(seed) % 8))
    except binascii.Error:
        raise InvalidArgument(where, "must be a base32 one-time-code seed") from None
    if len(decoded) * 8 < MIN_SEED_BITS:
        raise InvalidArgument(
            where, f"must be a base32 seed of at least {MIN_SEED_BITS} bits (26 characters)"
        )
    return seed


def check_fields(kind: EntryKind, fields: dict[str, str]) -> dict[str, str]:
    rules = FIELDS[kind]
    if kind == EntryKind.CARD and SECURITY_CODE_NAMES & fields.keys():
        raise InvalidArgument(
            "fields.security_code",
            "a card's security code is never saved; it is asked for each payment",
        )
    unknown = sorted(fields.keys() - rules.required - rules.optional)
    if unknown:
        allowed = ", ".join(sorted(rules.required | rules.optional))
        raise InvalidArgument(
            f"fields.{unknown[0]}", f"is not a field of this kind (allowed: {allowed})"
        )
    missing = sorted(rules.required - fields.keys())
    if missing:
        raise InvalidArgument(f"fields.{missing[0]}", "is required")
    return {name: _check_value(kind, name, value) for name, value in fields.items()}


def mask(name: str, value: str) -> str:
    """What a person may see of a saved value."""
    if name == "number":
        return f"•••• {value[-4:]}"
    if name in SHOWN_AS_TYPED:
        return value
    if name == "username":
        local, at, domain = value.partition("@")
        return f"{local[:1]}•••{at}{domain}" if at else f"{value[:1]}•••"
    return DOTS


def masked_fields(fields: dict[str, str]) -> dict[str, str]:
    return {name: mask(name, value) for name, value in fields.items()}


@dataclass(frozen=True)
class StoredItem:
    """A saved item as the vault keeps it: masked copy for showing, sealed for using."""

    id: str
    kind: EntryKind
    label: str
    origin: str | None
    masked_fields: dict[str, str]
    sealed_fields: dict[str, str]
    created_at: datetime
    updated_at: datetime
    # Logins: the other sites the person said it is for (G13).
    equivalent_origins: tuple[str, ...] = ()


@dataclass(frozen=True)
class ItemInput:
    id: str | None
    kind: EntryKind
    label: str
    origin: str | None
    fields: dict[str, str]
    equivalent_origins: tuple[str, ...] = ()


def check_item(item: ItemInput) -> ItemInput:
    if item.kind not in (EntryKind.SAVED_LOGIN, EntryKind.CARD):
        raise InvalidArgument("item.kind", "must be ENTRY_KIND_SAVED_LOGIN or ENTRY_KIND_CARD")
    # Labels are shown everywhere, unmasked: validation.text refuses a card number.
    label = validation.text("item.label", item.label, max_length=MAX_LABEL_LENGTH)
    origin = None
    equivalent: tuple[str, ...] = ()
    if item.kind == EntryKind.SAVED_LOGIN:
        origin = validation.origin("item.origin", item.origin or "")
        equivalent = check_equivalent_origins(origin, item.equivalent_origins)
    elif item.origin:
        raise InvalidArgument("item.origin", "a card is not tied to one site; leave origin empty")
    elif item.equivalent_origins:
        raise InvalidArgument(
            "item.equivalent_origins",
            "a card goes to the shop of each payment you say yes to; leave this empty",
        )
    fields = {name: value for name, value in item.fields.items()}
    checked = _prefix_errors("item.", lambda: check_fields(item.kind, fields))
    item_id = validation.uuid_id("item.id", item.id) if item.id else None
    return ItemInput(
        item_id, item.kind, label or _default_label(item.kind, checked), origin, checked, equivalent
    )


def _prefix_errors(prefix, build):
    try:
        return build()
    except InvalidArgument as error:
        raise InvalidArgument(prefix + error.field, error.description) from None


def _default_label(kind: EntryKind, fields: dict[str, str]) -> str:
    if kind == EntryKind.CARD:
        return f"Card ending {fields['number'][-4:]}"
    return mask("username", fields["username"])


def check_entry_destination(
    kind: EntryKind, origin: str, frame_origin: str
) -> tuple[str | None, str | None]:
    """The top page and frame a one-time code or typed password was asked
    for, without which it could be entered anywhere; a security code has
    none of its own (it goes with its card, under the card's binding)."""
    if kind == EntryKind.SECURITY_CODE:
        for field, value in (("origin", origin), ("frame_origin", frame_origin)):
            if value:
                raise InvalidArgument(
                    field, "a security code goes with its card, to the shop; leave this empty"
                )
        return None, None
    top = validation.origin("origin", origin)
    return top, validation.origin("frame_origin", frame_origin) if frame_origin else top
