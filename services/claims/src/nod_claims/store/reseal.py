"""The vault's sealed tables, as nodkit.resealing re-seals them: each named
as its values are sealed for (nod_claims.app.vault)."""

from nod_claims.store.models import private_entries, vault_items
from nodkit.resealing import SealedTable

SEALED_TABLES = (
    SealedTable(vault_items.name, vault_items, "sealed_fields"),
    SealedTable(private_entries.name, private_entries, "sealed_fields"),
)
