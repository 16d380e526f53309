"""The approvals service's sealed table, as nodkit.resealing re-seals it:
the connected apps' credentials, named as they are sealed for
(nod_approvals.app.accounts)."""

from nod_approvals.store.models import accounts
from nodkit.resealing import SealedTable

SEALED_TABLES = (SealedTable(accounts.name, accounts, "sealed_credentials"),)
