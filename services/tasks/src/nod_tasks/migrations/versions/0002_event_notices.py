"""a task's new event is announced on the nod_task_events channel

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01 17:10:00
"""

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Sent when the writing transaction commits, whichever instance wrote it:
    # WatchTask calls on every instance look again (nodkit.notices). Repeats
    # of one task's id in one transaction are folded into one notice.
    op.execute(
        """
        CREATE FUNCTION tasks.announce_event() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('nod_task_events', NEW.task_id::text);
            RETURN NULL;
        END
        $$
        """
    )
    op.execute(
        """
        CREATE TRIGGER events_announced AFTER INSERT ON tasks.events
        FOR EACH ROW EXECUTE FUNCTION tasks.announce_event()
        """
    )


def downgrade() -> None:
    op.execute("DROP TRIGGER events_announced ON tasks.events")
    op.execute("DROP FUNCTION tasks.announce_event()")
