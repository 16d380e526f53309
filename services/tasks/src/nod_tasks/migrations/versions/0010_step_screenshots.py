"""the picture of each step's page, for the person

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-06 12:00:00

After a step that changes or reads a page, the browser's picture of it
(every private field and every shown-back entered value painted over) is
kept with the step, for the person's view of the task: never read into
anything sent to the model. One row per step at most; at most
NOD_TASKS_SCREENSHOT_BYTES_PER_TASK of them per task. A row goes with its
step (ON DELETE CASCADE). The images are PNG, compressed already: stored
out of line and not compressed again (STORAGE EXTERNAL). A new table:
nothing is rewritten or locked.
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

SCHEMA = "tasks"


def upgrade() -> None:
    op.create_table(
        "step_screenshots",
        sa.Column("task_id", sa.UUID(as_uuid=False), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("image", sa.LargeBinary(), nullable=False),
        sa.Column("media_type", sa.Text(), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(
            ["task_id", "number"],
            ["tasks.steps.task_id", "tasks.steps.number"],
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("task_id", "number"),
        schema=SCHEMA,
    )
    op.execute("ALTER TABLE tasks.step_screenshots ALTER COLUMN image SET STORAGE EXTERNAL")


def downgrade() -> None:
    op.drop_table("step_screenshots", schema=SCHEMA)
