"""a payment's change is announced on the nod_payment_changes channel

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
    # instance wrote it: WatchPayment calls on every instance look again
    # (nodkit.notices). Repeats of one id in one transaction fold into one.
    op.execute(
        """
        CREATE FUNCTION payments.announce_change() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('nod_payment_changes', NEW.payment_id::text);
            RETURN NULL;
        END
        $$
        """
    )
    op.execute(
        """
        CREATE TRIGGER payment_events_announced AFTER INSERT ON payments.payment_events
        FOR EACH ROW EXECUTE FUNCTION payments.announce_change()
        """
    )


def downgrade() -> None:
    op.execute("DROP TRIGGER payment_events_announced ON payments.payment_events")
    op.execute("DROP FUNCTION payments.announce_change()")
