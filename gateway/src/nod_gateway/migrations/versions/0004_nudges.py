"""people: an address for nudges, when a page was last seen open; nudges

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-06 20:40:00

A person may add an address nod emails when it waits for them and no page
of theirs is open (nudges.py). Each wait is emailed about once, however
many gateway replicas run: the one whose INSERT into nudges wins sends.
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

SCHEMA = "gateway"


def upgrade() -> None:
    op.add_column("people", sa.Column("nudge_address", sa.Text, nullable=True), schema=SCHEMA)
    op.add_column(
        "people",
        sa.Column("page_seen_at", sa.DateTime(timezone=True), nullable=True),
        schema=SCHEMA,
    )
    op.create_table(
        "nudges",
        sa.Column("task_id", sa.Text, primary_key=True),
        sa.Column("wait_id", sa.Text, primary_key=True),
        sa.Column(
            "person",
            sa.Text,
            sa.ForeignKey(f"{SCHEMA}.people.name", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column(
            "claimed_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.Column("instance_id", sa.Text, nullable=False),
        sa.Column("outcome", sa.Text, nullable=True),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        schema=SCHEMA,
    )
    op.create_index("nudges_by_person", "nudges", ["person"], schema=SCHEMA)


def downgrade() -> None:
    op.drop_table("nudges", schema=SCHEMA)
    op.drop_column("people", "page_seen_at", schema=SCHEMA)
    op.drop_column("people", "nudge_address", schema=SCHEMA)
