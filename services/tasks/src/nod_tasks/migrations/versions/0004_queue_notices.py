"""a task queued or stopped is announced on the nod_task_queue channel

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02 12:00:00

The workers of every instance used to look at the queue (and for runs a
Stop elsewhere cut off) several times a second. They now wake when a task
becomes QUEUED (payload 'queued') or STOPPED ('stopped'), on whichever
instance it happened, and look on their own only rarely, in case a notice
was missed. Repeats of one payload in one transaction are folded into one
notice, so a Stop of many tasks wakes each worker once.
"""

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        CREATE FUNCTION tasks.announce_queue() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('nod_task_queue', NEW.state);
            RETURN NULL;
        END
        $$
        """
    )
    op.execute(
        """
        CREATE TRIGGER tasks_queued_announced AFTER INSERT ON tasks.tasks
        FOR EACH ROW WHEN (NEW.state = 'queued') EXECUTE FUNCTION tasks.announce_queue()
        """
    )
    op.execute(
        """
        CREATE TRIGGER tasks_moves_announced AFTER UPDATE OF state ON tasks.tasks
        FOR EACH ROW WHEN (NEW.state IN ('queued', 'stopped') AND OLD.state <> NEW.state)
        EXECUTE FUNCTION tasks.announce_queue()
        """
    )


def downgrade() -> None:
    op.execute("DROP TRIGGER tasks_moves_announced ON tasks.tasks")
    op.execute("DROP TRIGGER tasks_queued_announced ON tasks.tasks")
    op.execute("DROP FUNCTION tasks.announce_queue()")
