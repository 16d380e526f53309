"""request ids of Continue

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-03 10:00:00

Continue takes an optional request_id: a resend after a lost answer (or the
same form posted twice) finds the Continue its id made and starts no other
run. The primary key (owner, request_id) makes two racing resends one.
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "continue_requests",
        sa.Column("owner", sa.Text(), nullable=False),
        sa.Column("request_id", sa.Text(), nullable=False),
        sa.Column("task_id", sa.UUID(as_uuid=False), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(["task_id"], ["tasks.tasks.id"]),
        sa.PrimaryKeyConstraint("owner", "request_id"),
        schema="tasks",
    )


def downgrade() -> None:
    op.drop_table("continue_requests", schema="tasks")
