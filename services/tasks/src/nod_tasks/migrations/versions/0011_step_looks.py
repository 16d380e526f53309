"""what a look for an uncertain step found (G14)

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-06 21:00:00

"Look for me" reads, read-only, the place where an uncertain step's result
would show, and keeps what it found beside the step as evidence: the
finding, a sentence for the person, where it looked, when, and the page as
the person would see it (private values painted over by the browser). The
step's state is not touched: it stays UNCERTAIN. One row per step, the
last look (a newer look replaces it); it goes with its step (ON DELETE
CASCADE). The picture is PNG, compressed already (STORAGE EXTERNAL). A new
table: nothing is rewritten or locked.
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

SCHEMA = "tasks"


def upgrade() -> None:
    op.create_table(
        "step_looks",
        sa.Column("task_id", sa.UUID(as_uuid=False), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("finding", sa.Text(), nullable=False),
        sa.Column("sentence", sa.Text(), nullable=False),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("looked_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("image", sa.LargeBinary(), nullable=True),
        sa.Column("media_type", sa.Text(), nullable=True),
        sa.CheckConstraint(
            "finding IN ('found', 'no_sign', 'nothing_to_read')", name="step_looks_finding"
        ),
        sa.ForeignKeyConstraint(
            ["task_id", "number"],
            ["tasks.steps.task_id", "tasks.steps.number"],
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("task_id", "number"),
        schema=SCHEMA,
    )
    op.execute("ALTER TABLE tasks.step_looks ALTER COLUMN image SET STORAGE EXTERNAL")


def downgrade() -> None:
    op.drop_table("step_looks", schema=SCHEMA)
