"""approvals.request_id: one approval per person and request id

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01 10:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

# The trigger of 0001, with the request id among what never changes.
_ONE_DIRECTION = """
CREATE OR REPLACE FUNCTION approvals.approvals_one_direction() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.state <> 'pending' AND NEW IS DISTINCT FROM OLD THEN
        RAISE EXCEPTION 'approval % is % and cannot change', OLD.id, OLD.state;
    END IF;
    IF (NEW.id, NEW.owner, NEW.task_id, NEW.account_id, NEW.app, NEW.action, NEW.summary,
        NEW.saved_action, NEW.digest, NEW.created_at, NEW.expires_at{new})
       IS DISTINCT FROM
       (OLD.id, OLD.owner, OLD.task_id, OLD.account_id, OLD.app, OLD.action, OLD.summary,
        OLD.saved_action, OLD.digest, OLD.created_at, OLD.expires_at{old}) THEN
        RAISE EXCEPTION 'approval %: the saved action never changes', OLD.id;
    END IF;
    RETURN NEW;
END $$;
"""


def upgrade() -> None:
    # Approvals made before request ids each get one no caller can have sent
    # (a volatile default is evaluated per row, and fires no update trigger).
    op.add_column(
        "approvals",
        sa.Column(
            "request_id",
            sa.Text(),
            nullable=False,
            server_default=sa.text("'before-0002:' || gen_random_uuid()"),
        ),
        schema="approvals",
    )
    op.alter_column("approvals", "request_id", server_default=None, schema="approvals")
    op.create_unique_constraint(
        "approvals_one_per_request", "approvals", ["owner", "request_id"], schema="approvals"
    )
    op.execute(_ONE_DIRECTION.format(new=", NEW.request_id", old=", OLD.request_id"))


def downgrade() -> None:
    op.execute(_ONE_DIRECTION.format(new="", old=""))
    op.drop_constraint("approvals_one_per_request", "approvals", schema="approvals")
    op.drop_column("approvals", "request_id", schema="approvals")
