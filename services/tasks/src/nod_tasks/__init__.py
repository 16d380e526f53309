"""The tasks service: a person's task in words, done step by step by an agent
loop under the promise (G5, G6, G9-G12)."""

import pathlib

from nodkit.migrations import Migrations

SCHEMA = "tasks"
MIGRATIONS = Migrations(SCHEMA, pathlib.Path(__file__).resolve().parents[2] / "migrations")
