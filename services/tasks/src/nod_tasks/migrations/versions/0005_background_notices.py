"""what the background loops wait for is announced on nod_task_queue too

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02 13:00:00

An idle instance used to look at its tables several times a second: the
outside waits every 0.4 s, the ends to tell and the queue every few
seconds. Each loop now sleeps until what it waits for is announced, on
whichever instance it happened, and looks on its own only rarely, in case
a notice was missed:

- 'queued' also when a queued task's last end has been told: it may be
  taken only from then on (0004 announced it when it became QUEUED);
- 'waiting' when a task starts waiting on something outside (a decision,
  a payment, a bank's confirmation);
- 'to_tell' when a task's end is to be told to the other services.
"""

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

OUTSIDE_KINDS = "('decision', 'payment', 'bank_confirmation')"


def upgrade() -> None:
    # The payload is the trigger's argument.
    op.execute(
        """
        CREATE FUNCTION tasks.announce_on_queue() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('nod_task_queue', TG_ARGV[0]);
            RETURN NULL;
        END
        $$
        """
    )
    op.execute(
        """
        CREATE TRIGGER tasks_told_announced AFTER UPDATE OF cleanup_pending ON tasks.tasks
        FOR EACH ROW WHEN (OLD.cleanup_pending AND NOT NEW.cleanup_pending AND NEW.state = 'queued')
        EXECUTE FUNCTION tasks.announce_on_queue('queued')
        """
    )
    op.execute(
        f"""
        CREATE TRIGGER tasks_waiting_announced AFTER UPDATE OF state, wait ON tasks.tasks
        FOR EACH ROW WHEN (
            NEW.state = 'waiting' AND NEW.wait ->> 'kind' IN {OUTSIDE_KINDS}
            AND (OLD.state <> NEW.state OR OLD.wait IS DISTINCT FROM NEW.wait)
        )
        EXECUTE FUNCTION tasks.announce_on_queue('waiting')
        """
    )
    op.execute(
        """
        CREATE TRIGGER tasks_to_tell_announced AFTER UPDATE OF cleanup_pending ON tasks.tasks
        FOR EACH ROW WHEN (NEW.cleanup_pending AND NOT OLD.cleanup_pending)
        EXECUTE FUNCTION tasks.announce_on_queue('to_tell')
        """
    )


def downgrade() -> None:
    op.execute("DROP TRIGGER tasks_to_tell_announced ON tasks.tasks")
    op.execute("DROP TRIGGER tasks_waiting_announced ON tasks.tasks")
    op.execute("DROP TRIGGER tasks_told_announced ON tasks.tasks")
    op.execute("DROP FUNCTION tasks.announce_on_queue()")
