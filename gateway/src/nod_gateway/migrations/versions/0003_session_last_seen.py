"""sessions: when each was last seen

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02 15:00:00

The operator's `nodctl people sessions` shows when each session last loaded
a page, so a forgotten sign-in can be told from one in use before it is
revoked. Existing sessions start as seen when they were made.
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

SCHEMA = "gateway"


def upgrade() -> None:
    op.add_column(
        "sessions",
        sa.Column(
            "last_seen_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        schema=SCHEMA,
    )
    op.execute(f"UPDATE {SCHEMA}.sessions SET last_seen_at = created_at")


def downgrade() -> None:
    op.drop_column("sessions", "last_seen_at", schema=SCHEMA)
