"""indexes that let the records which only grow be pruned cheaply

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-03 12:00:00

Sign-in attempts and expired sessions are now deleted on a schedule once
past their keep (nod_gateway.people.pruning). Each delete picks the oldest
rows by time, so each table gets an index on that time alone: the existing
ones lead with the name or the address. Both tables are small (a row per
sign-in), so a plain CREATE INDEX holds its lock only briefly while the
release before this one keeps serving.
"""

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

SCHEMA = "gateway"


def upgrade() -> None:
    op.create_index("sign_in_attempts_by_time", "sign_in_attempts", ["at"], schema=SCHEMA)
    op.create_index("sessions_by_expiry", "sessions", ["expires_at"], schema=SCHEMA)


def downgrade() -> None:
    op.drop_index("sessions_by_expiry", table_name="sessions", schema=SCHEMA)
    op.drop_index("sign_in_attempts_by_time", table_name="sign_in_attempts", schema=SCHEMA)
