"""The vault use cases. Values are sealed before they reach SQL and are
never read back here: listing shows the masked copy made at write time.
A save that carries a request_id is made once (domain.vault_requests)."""

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from nod_claims.domain.claims import ONE_TIME_KINDS, EntryKind
from nod_claims.domain.vault import (
    ItemInput,
    StoredItem,
    check_entry_destination,
    check_fields,
    check_item,
    masked_fields,
)
from nod_claims.domain.vault_requests import (
    PUT_ITEM,
    PUT_PRIVATE_ENTRY,
    REQUESTS_TABLE,
    entry_content,
    item_content,
    optional_request_id,
    reused,
)
from nod_claims.store import vault as vault_repo
from nodkit import validation
from nodkit.crypto import Sealer
from nodkit.errors import InvalidArgument, NotFound
from nodkit.logging import get_logger

log = get_logger("nod_claims.vault")

# Part of each sealed value's associated data: a value sealed for one table
# does not open as a value of the other.
ITEM_TABLE = "vault_items"
PRIVATE_ENTRY_TABLE = "private_entries"


class Vault:
    def __init__(self, engine: AsyncEngine, sealer: Sealer, *, private_entry_ttl_s: float) -> None:
        self._engine = engine
        self._sealer = sealer
        self._entry_ttl_s = private_entry_ttl_s

    async def put_item(self, owner: str, item: ItemInput, request_id: str = "") -> StoredItem:
        item = check_item(item)
        request_id = optional_request_id(request_id)
        item_id = item.id or vault_repo.new_id()
        values = {
            "kind": item.kind.value,
            "label": item.label,
            "origin": item.origin,
            "equivalent_origins": list(item.equivalent_origins),
            "masked_fields": masked_fields(item.fields),
            "sealed_fields": self._sealer.seal_fields(item.fields, owner, ITEM_TABLE, item_id),
        }
        async with self._engine.begin() as conn:
            first = await self._first_made(
                conn, owner, request_id, PUT_ITEM, item_id, item_content(item)
            )
            if first is not None:
                # A resend: the item the first request saved, as it is now.
                resent = await vault_repo.get_item(conn, owner, first)
                if resent is None:
                    raise NotFound(
                        "the item this request saved was deleted since", reason="ITEM_NOT_FOUND"
                    )
                log.info("vault.item_resent", item_id=resent.id, kind=resent.kind.value)
                return resent
            if item.id is None:
                stored = await vault_repo.insert_item(conn, owner, item_id, **values)
            else:
                replaced = await vault_repo.replace_item(conn, owner, item_id, **values)
                if replaced is None:
                    existing = await vault_repo.get_item(conn, owner, item_id)
                    if existing is None:
                        raise NotFound("no such vault item", reason="ITEM_NOT_FOUND")
                    raise InvalidArgument("item.kind", "can't change the kind of a saved item")
                stored = replaced
        log.info("vault.item_saved", item_id=stored.id, kind=stored.kind.value)
        return stored

    async def list_items(self, owner: str, kind: EntryKind | None) -> list[StoredItem]:
        async with self._engine.connect() as conn:
            return await vault_repo.list_items(conn, owner, kind)

    async def delete_item(self, owner: str, item_id: str) -> None:
        item_id = validation.uuid_id("item_id", item_id)
        async with self._engine.begin() as conn:
            if not await vault_repo.delete_item(conn, owner, item_id):
                raise NotFound("no such vault item", reason="ITEM_NOT_FOUND")
        log.info("vault.item_deleted", item_id=item_id)

    async def put_private_entry(
        self,
        owner: str,
        task_id: str,
        kind: EntryKind,
        fields: dict[str, str],
        request_id: str = "",
        *,
        origin: str = "",
        frame_origin: str = "",
    ) -> str:
        task_id = validation.printable_id("task_id", task_id)
        request_id = optional_request_id(request_id)
        if kind not in ONE_TIME_KINDS:
            raise InvalidArgument(
                "kind",
                "must be ENTRY_KIND_ONE_TIME_CODE, ENTRY_KIND_TYPED_PASSWORD"
                " or ENTRY_KIND_SECURITY_CODE",
            )
        fields = check_fields(kind, fields)
        where = check_entry_destination(kind, origin, frame_origin)
        entry_id = vault_repo.new_id()
        sealed = self._sealer.seal_fields(fields, owner, PRIVATE_ENTRY_TABLE, entry_id)
        async with self._engine.begin() as conn:
            first = await self._first_made(
                conn,
                owner,
                request_id,
                PUT_PRIVATE_ENTRY,
                entry_id,
                entry_content(task_id, kind, fields, *where),
            )
            if first is not None:
                # A resend: the first entry's id, even once it was used or
                # discarded; nothing is stored again.
                log.info("vault.private_entry_resent", entry_id=first, task_id=task_id)
                return first
            await vault_repo.insert_private_entry(
                conn,
                owner,
                entry_id,
                task_id=task_id,
                kind=kind,
                sealed_fields=sealed,
                ttl_s=self._entry_ttl_s,
                origin=where[0],
                frame_origin=where[1],
            )
        log.info("vault.private_entry_saved", entry_id=entry_id, kind=kind.value, task_id=task_id)
        return entry_id

    async def _first_made(
        self,
        conn: AsyncConnection,
        owner: str,
        request_id: str,
        call: str,
        record_id: str,
        content: str,
    ) -> str | None:
        """None when this request is the first with its id (or has none) and
        goes on to make `record_id`; else the id of the record the first one
        made, when this is a resend of it. Written first in the transaction,
        so a racing resend waits on the unique key, then reads this row; a
        failed save rolls the row back with it."""
        if not request_id:
            return None
        context = (owner, REQUESTS_TABLE, request_id)
        digest = self._sealer.digest(content, *context)
        if await vault_repo.record_request(
            conn, owner, request_id, call=call, record_id=record_id, digest=digest
        ):
            return None
        first = await vault_repo.first_request(conn, owner, request_id)
        if (
            first is None
            or first.call != call
            or not self._sealer.digest_matches(first.digest, content, *context)
        ):
            raise reused()
        return first.record_id

    async def discard_private_entries(self, owner: str, task_id: str) -> int:
        task_id = validation.printable_id("task_id", task_id)
        async with self._engine.begin() as conn:
            count = await vault_repo.discard_task_entries(conn, owner, task_id)
        log.info("vault.private_entries_discarded", task_id=task_id, count=count)
        return count
