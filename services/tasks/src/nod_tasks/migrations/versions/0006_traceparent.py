"""a task keeps the trace context of the call that last queued it

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02 13:00:00

A run is taken from the queue later, by any instance: with the W3C
traceparent of the StartTask (or Continue, or answer) that queued it, the
run and its tool calls join that call's trace, so one trace leads from the
person's request in the gateway to the claim the run made. NULL when
tracing is off.
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("tasks", sa.Column("traceparent", sa.Text, nullable=True), schema="tasks")


def downgrade() -> None:
    op.drop_column("tasks", "traceparent", schema="tasks")
