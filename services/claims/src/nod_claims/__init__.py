"""The claims service: the vault and one claim per private entry (G1, G2, G3)."""

from nodkit.migrations import Migrations

SCHEMA = "claims"
MIGRATIONS = Migrations(SCHEMA, __name__)
