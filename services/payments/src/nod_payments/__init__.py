"""The payments service: each payment's single-use yes, the link to the card
claim that guards its one card entry, and the outcome read from the page (G8)."""

import pathlib

from nodkit.migrations import Migrations

SCHEMA = "payments"
MIGRATIONS = Migrations(SCHEMA, pathlib.Path(__file__).resolve().parents[2] / "migrations")
