"""indexes that let the records which only grow be pruned cheaply

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-03 11:00:00

Request ids and TOTP steps are now deleted on a schedule once past their
keep (nod_claims.pruning). Each delete picks the oldest rows by creation
time, so each table gets an index on that time alone: their primary keys
lead with the owner. Both hold a row per write or per code given, so a
plain CREATE INDEX holds its lock only briefly.
"""

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

SCHEMA = "claims"


def upgrade() -> None:
    op.create_index("vault_requests_by_time", "vault_requests", ["created_at"], schema=SCHEMA)
    op.create_index("totp_steps_by_time", "totp_steps", ["created_at"], schema=SCHEMA)


def downgrade() -> None:
    op.drop_index("totp_steps_by_time", table_name="totp_steps", schema=SCHEMA)
    op.drop_index("vault_requests_by_time", table_name="vault_requests", schema=SCHEMA)
