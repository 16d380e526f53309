"""Private entry rules, in plain Python: which value fields each kind of entry
has, how a request is checked before anything is claimed, and how the granted
values are matched to page fields. Values are never logged or put in errors."""

from dataclasses import dataclass
from enum import StrEnum

from nod_browser.domain.card_expiry import EXPIRY_PARTS, expiry_part
from nod_browser.domain.targets import check_target
from nodkit import validation
from nodkit.errors import InvalidArgument


class EntryKind(StrEnum):
    """The claims contract's EntryKind (nod.claims.v1), matched to it by name."""

    SAVED_LOGIN = "saved_login"
    ONE_TIME_CODE = "one_time_code"
    CARD = "card"
    TYPED_PASSWORD = "typed_password"
    SECURITY_CODE = "security_code"


# The value fields a caller may place, per kind. `totp_code` is the code the
# claims service gives from a saved login's TOTP seed, for a time step it
# grants once; `security_code` on a card comes from the companion entry;
# `expiry_month` and `expiry_year` are the card's expiry in two parts, for a
# site that asks for them apart (often as two selects).
VALUE_FIELDS = {
    EntryKind.SAVED_LOGIN: frozenset({"username", "password", "totp_code"}),
    EntryKind.ONE_TIME_CODE: frozenset({"code"}),
    EntryKind.CARD: frozenset({"number", "expiry", "holder_name", "security_code"} | EXPIRY_PARTS),
    EntryKind.TYPED_PASSWORD: frozenset({"username", "password"}),
    EntryKind.SECURITY_CODE: frozenset({"security_code"}),
}
# Values a site rightly shows back ("Signed in as ada@example.com", the name
# on an order). Every other value entered is masked wherever a page shows it.
# An expiry's month or year alone ("12", "2029") is no secret (the vault
# shows the expiry unmasked) and masking it would blot out every such
# number on the page: prices, dates, order numbers.
SHOWN_BACK_FREELY = frozenset({"username", "holder_name"} | EXPIRY_PARTS)


@dataclass(frozen=True)
class EntryRequest:
    operation_id: str
    kind: EntryKind
    item_id: str
    # value field -> target (an element ref or CSS selector)
    fields: dict[str, str]
    submit: str | None
    companion_entry_id: str | None


class MissingValue(Exception):
    """The granted item has no value for a field the caller placed."""

    def __init__(self, name: str) -> None:
        super().__init__(f"the granted entry has no {name}")
        self.name = name


def check_entry_request(request: EntryRequest) -> EntryRequest:
    """Raises InvalidArgument naming the field; runs before anything is claimed."""
    if not request.fields:
        raise InvalidArgument("fields", "name at least one value field and its page field")
    allowed = VALUE_FIELDS[request.kind]
    for name in sorted(request.fields):
        if name not in allowed:
            names = ", ".join(sorted(allowed))
            raise InvalidArgument(f"fields.{name}", f"is not a field of this kind ({names})")
    if request.companion_entry_id and request.kind != EntryKind.CARD:
        raise InvalidArgument("companion_entry_id", "only a card entry takes a companion entry")
    if request.kind == EntryKind.CARD and "security_code" in request.fields:
        if not request.companion_entry_id:
            raise InvalidArgument(
                "fields.security_code", "a card's security code comes with companion_entry_id"
            )
    return EntryRequest(
        operation_id=validation.printable_id("operation_id", request.operation_id),
        kind=request.kind,
        item_id=validation.uuid_id("item_id", request.item_id),
        fields={n: check_target(f"fields.{n}", t) for n, t in request.fields.items()},
        submit=check_target("submit", request.submit) if request.submit else None,
        companion_entry_id=validation.optional_uuid_id(
            "companion_entry_id", request.companion_entry_id or ""
        ),
    )


def value_for(name: str, secret_fields: dict[str, str]) -> str:
    if name in EXPIRY_PARTS:
        part = expiry_part(name, secret_fields.get("expiry", ""))
        if part is None:
            raise MissingValue(name)
        return part
    value = secret_fields.get(name)
    if not value:
        raise MissingValue(name)
    return value


def code_valid_from(secret_fields: dict[str, str]) -> float:
    """When a granted TOTP code becomes valid (unix seconds): a second
    sign-in in the same window is given the next step's code, to be typed
    once that step has begun. 0 when there is none."""
    try:
        return float(secret_fields.get("totp_not_before", "0"))
    except ValueError:
        return 0.0
