"""the instance telling a task's end, so one replica tells it at a time

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-04 21:00:00

Replicas of the tasks service share the ended tasks still to be told. Two
telling one task at once could let the later of them, its look at the
task's steps older than the first's `told`, end what the task's next run
(after a Continue) was waiting for. An ended task's telling is now taken
by one live instance at a time (nod_tasks.app.endings). A nullable column
with no default: adding it rewrites nothing and locks the table briefly.
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

SCHEMA = "tasks"


def upgrade() -> None:
    op.add_column("tasks", sa.Column("teller_instance", sa.Text(), nullable=True), schema=SCHEMA)


def downgrade() -> None:
    op.drop_column("tasks", "teller_instance", schema=SCHEMA)
