"""an approval's or its execution's change is announced on the nod_approval_changes channel

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 17:50:00
"""

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Every change writes its history row, so the history's new row is the
    # announcement, sent when the writing transaction commits, whichever
    # instance wrote it: WatchApproval calls on every instance look again
    # (nodkit.notices). Repeats of one id in one transaction fold into one.
    op.execute(
        """
        CREATE FUNCTION approvals.announce_change() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('nod_approval_changes', NEW.approval_id::text);
            RETURN NULL;
        END
        $$
        """
    )
    op.execute(
        """
        CREATE TRIGGER approval_events_announced AFTER INSERT ON approvals.approval_events
        FOR EACH ROW EXECUTE FUNCTION approvals.announce_change()
        """
    )


def downgrade() -> None:
    op.execute("DROP TRIGGER approval_events_announced ON approvals.approval_events")
    op.execute("DROP FUNCTION approvals.announce_change()")
