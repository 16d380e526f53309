"""The payments service: each payment's single-use yes, the link to the card
claim that guards its one card entry, and the outcome read from the page (G8)."""

from nodkit.migrations import Migrations

SCHEMA = "payments"
MIGRATIONS = Migrations(SCHEMA, __name__)
