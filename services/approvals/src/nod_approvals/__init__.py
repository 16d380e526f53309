"""The approvals service: connected app accounts, proposed app actions, the
person's decisions and each approved action's single execution (G7)."""

from nodkit.migrations import Migrations

SCHEMA = "approvals"
MIGRATIONS = Migrations(SCHEMA, __name__)
