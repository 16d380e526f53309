"""Request ids of PutItem and PutPrivateEntry (G5: one use, one result).

A request that carries a request_id saves at most one record: a resend with
the same id and the same content (after a lost answer, a form posted twice)
gets the record the first request made, and one with other content is
refused. Content is compared by a keyed digest of its canonical form, so no
private value is kept to compare with, and none is named in the refusal."""

import json
from dataclasses import dataclass

from nod_claims.domain.claims import EntryKind
from nod_claims.domain.vault import ItemInput
from nodkit import validation
from nodkit.errors import AlreadyExists

PUT_ITEM = "put_item"
PUT_PRIVATE_ENTRY = "put_private_entry"
# Part of every digest's context: a digest made for this table means nothing elsewhere.
REQUESTS_TABLE = "vault_requests"


@dataclass(frozen=True)
class FirstRequest:
    """What the first request with an id made, as recorded."""

    call: str
    record_id: str
    digest: str


def optional_request_id(value: str) -> str:
    """Empty keeps the call as it was without one (every call saves)."""
    return validation.printable_id("request_id", value) if value else ""


def _canonical(call: str, **parts: object) -> str:
    return json.dumps({"call": call, **parts}, sort_keys=True, separators=(",", ":"))


def item_content(item: ItemInput) -> str:
    """A checked item as compared between resends: the same values however
    the caller spelled them (a card number's spaces, a seed's case)."""
    # Only when listed: a request id recorded before equivalent origins
    # existed compares as it did then.
    listed = sorted(item.equivalent_origins)
    extra = {"equivalent_origins": listed} if listed else {}
    return _canonical(
        PUT_ITEM,
        id=item.id,
        kind=item.kind.value,
        label=item.label,
        origin=item.origin,
        fields=item.fields,
        **extra,
    )


def entry_content(
    task_id: str,
    kind: EntryKind,
    fields: dict[str, str],
    origin: str | None = None,
    frame_origin: str | None = None,
) -> str:
    if kind == EntryKind.SECURITY_CODE:
        # A card's security code is kept no longer than its one payment (PCI
        # DSS 3.3.1), and this digest outlives it by weeks: a digest of three
        # or four digits is undone by trying them all under the key. So only
        # which fields a resend carries is compared, never the code.
        fields = dict.fromkeys(fields, "")
    where = {"origin": origin, "frame_origin": frame_origin} if origin else {}
    return _canonical(PUT_PRIVATE_ENTRY, task_id=task_id, kind=kind.value, fields=fields, **where)


def reused() -> AlreadyExists:
    # Says nothing of either request's values.
    return AlreadyExists(
        "request_id was already used for another request with other content",
        reason="REQUEST_ID_REUSED",
        field="request_id",
    )
