"""What `nod-claims drop-unreadable` (through `nodctl vault drop-unreadable`)
drops of the values sealed under vault keys that are lost for good. Such a
value can never open again; what drop means is chosen per table so that
nothing the claims' promises rest on goes:

- a saved item (a login or a card) with a value under a lost key is
  deleted, as if its owner deleted it: it could never be used, and would
  only show as saved. Claims made with it keep their records and states
  (they name the item's id, never its values), and its card bindings stay
  (the record of where a card was allowed).
- a pending private entry (a typed code or password) under a lost key is
  deleted, as when it expires: its task asks again.

Digests under a lost key (vault_requests, totp_account_steps) are left to
pruning: they hold no value, and one that can't be checked refuses, never
matches (nodkit.crypto.Sealer.digest_matches)."""

from collections import Counter
from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncConnection

from nod_claims.store.reseal import SEALED_TABLES
from nodkit.startup import Dropped, sealed_with

DELETED = "deleted"


async def drop_unreadable(conn: AsyncConnection, key_ids: Sequence[str]) -> list[Dropped]:
    """Deletes every saved item and private entry with a value sealed under
    one of `key_ids`, in the caller's transaction; how many of each kind."""
    dropped: list[Dropped] = []
    for sealed in SEALED_TABLES:
        where = await sealed_with(conn, sealed, key_ids)
        if where is None:
            continue
        table = sealed.table
        deleted = await conn.execute(table.delete().where(where).returning(table.c.kind))
        kinds = Counter(row.kind for row in deleted)
        dropped += [Dropped(sealed.name, kind, n, DELETED) for kind, n in sorted(kinds.items())]
    return dropped
