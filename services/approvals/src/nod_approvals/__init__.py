"""The approvals service: connected app accounts, proposed app actions, the
person's decisions and each approved action's single execution (G7)."""

import pathlib

SCHEMA = "approvals"
MIGRATIONS_DIR = pathlib.Path(__file__).resolve().parents[2] / "migrations"
