"""an index that lets Continue's request ids be pruned cheaply

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-03 11:00:00

Continue's request ids are now deleted on a schedule once past their keep
(nod_tasks.pruning), oldest first by creation time: an index on that time
alone (the primary key leads with the owner). The table holds a row per
Continue, so a plain CREATE INDEX holds its lock only briefly.
"""

from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

SCHEMA = "tasks"


def upgrade() -> None:
    op.create_index("continue_requests_by_time", "continue_requests", ["created_at"], schema=SCHEMA)


def downgrade() -> None:
    op.drop_index("continue_requests_by_time", table_name="continue_requests", schema=SCHEMA)
