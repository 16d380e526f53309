"""The claims service: the vault and one claim per private entry (G1, G2, G3)."""

import pathlib

from nodkit.migrations import Migrations

SCHEMA = "claims"
MIGRATIONS = Migrations(SCHEMA, pathlib.Path(__file__).resolve().parents[2] / "migrations")
