"""approvals.possible_duplicate_of: a proposal repeating an earlier one of its task

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 12:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

# The trigger of 0002, with the duplicate mark among what never changes.
_ONE_DIRECTION = """
CREATE OR REPLACE FUNCTION approvals.approvals_one_direction() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.state <> 'pending' AND NEW IS DISTINCT FROM OLD THEN
        RAISE EXCEPTION 'approval % is % and cannot change', OLD.id, OLD.state;
    END IF;
    IF (NEW.id, NEW.owner, NEW.task_id, NEW.account_id, NEW.app, NEW.action, NEW.summary,
        NEW.saved_action, NEW.digest, NEW.created_at, NEW.expires_at, NEW.request_id{new})
       IS DISTINCT FROM
       (OLD.id, OLD.owner, OLD.task_id, OLD.account_id, OLD.app, OLD.action, OLD.summary,
        OLD.saved_action, OLD.digest, OLD.created_at, OLD.expires_at, OLD.request_id{old}) THEN
        RAISE EXCEPTION 'approval %: the saved action never changes', OLD.id;
    END IF;
    RETURN NEW;
END $$;
"""


def upgrade() -> None:
    op.add_column(
        "approvals",
        sa.Column("possible_duplicate_of", sa.UUID(as_uuid=False), nullable=True),
        schema="approvals",
    )
    op.create_foreign_key(
        "approvals_possible_duplicate_of_fkey",
        "approvals",
        "approvals",
        ["possible_duplicate_of"],
        ["id"],
        source_schema="approvals",
        referent_schema="approvals",
    )
    op.execute(
        _ONE_DIRECTION.format(new=", NEW.possible_duplicate_of", old=", OLD.possible_duplicate_of")
    )


def downgrade() -> None:
    op.execute(_ONE_DIRECTION.format(new="", old=""))
    op.drop_constraint(
        "approvals_possible_duplicate_of_fkey", "approvals", schema="approvals", type_="foreignkey"
    )
    op.drop_column("approvals", "possible_duplicate_of", schema="approvals")
