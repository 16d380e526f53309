"""The tasks service: a person's task in words, done step by step by an agent
loop under the promise (G5, G6, G9-G12)."""

from nodkit.migrations import Migrations

SCHEMA = "tasks"
MIGRATIONS = Migrations(SCHEMA, __name__)
