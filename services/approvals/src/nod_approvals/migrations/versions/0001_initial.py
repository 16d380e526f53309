"""accounts, approvals, executions, approval events, instance leases

Revision ID: 0001
Revises:
Create Date: 2026-11-30 06:57:51.308419
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.UUID(as_uuid=False), nullable=False),
        sa.Column("owner", sa.Text(), nullable=False),
        sa.Column("app", sa.Text(), nullable=False),
        sa.Column("label", sa.Text(), nullable=False),
        sa.Column("settings", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("sealed_credentials", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column("disconnected_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        schema="approvals",
    )
    op.create_index(
        "accounts_by_owner",
        "accounts",
        ["owner", "created_at", "id"],
        unique=False,
        schema="approvals",
    )
    op.create_table(
        "instance_leases",
        sa.Column("instance_id", sa.Text(), nullable=False),
        sa.Column("lease_expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column(
            "renewed_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("instance_id"),
        schema="approvals",
    )
    op.create_table(
        "approvals",
        sa.Column(
            "id",
            sa.UUID(as_uuid=False),
            server_default=sa.text("gen_random_uuid()"),
            nullable=False,
        ),
        sa.Column("owner", sa.Text(), nullable=False),
        sa.Column("task_id", sa.Text(), nullable=False),
        sa.Column("account_id", sa.UUID(as_uuid=False), nullable=False),
        sa.Column("app", sa.Text(), nullable=False),
        sa.Column("action", sa.Text(), nullable=False),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.Column("saved_action", sa.Text(), nullable=False),
        sa.Column("digest", sa.Text(), nullable=False),
        sa.Column("state", sa.Text(), nullable=False),
        sa.Column("reason", sa.Text(), server_default="", nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column(
            "updated_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint("digest ~ '^[0-9a-f]{64}$'", name="approvals_digest_is_sha256"),
        sa.CheckConstraint(
            "state IN ('pending', 'approved', 'rejected', 'cancelled', 'expired')",
            name="approvals_state",
        ),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["approvals.accounts.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        schema="approvals",
    )
    op.create_index(
        "approvals_by_owner",
        "approvals",
        ["owner", "created_at", "id"],
        unique=False,
        schema="approvals",
    )
    op.create_index(
        "approvals_by_task",
        "approvals",
        ["owner", "task_id", "created_at", "id"],
        unique=False,
        schema="approvals",
    )
    op.create_index(
        "approvals_pending_expiry",
        "approvals",
        ["expires_at"],
        unique=False,
        schema="approvals",
        postgresql_where=sa.text("state = 'pending'"),
    )
    op.create_table(
        "approval_events",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column("approval_id", sa.UUID(as_uuid=False), nullable=False),
        sa.Column("subject", sa.Text(), nullable=False),
        sa.Column(
            "at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False
        ),
        sa.Column("actor", sa.Text(), nullable=False),
        sa.Column("from_state", sa.Text(), nullable=True),
        sa.Column("to_state", sa.Text(), nullable=False),
        sa.Column("reason", sa.Text(), server_default="", nullable=False),
        sa.CheckConstraint("subject IN ('approval', 'execution')", name="approval_events_subject"),
        sa.ForeignKeyConstraint(
            ["approval_id"],
            ["approvals.approvals.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        schema="approvals",
    )
    op.create_index(
        "approval_events_by_approval",
        "approval_events",
        ["approval_id", "id"],
        unique=False,
        schema="approvals",
    )
    op.create_table(
        "executions",
        sa.Column("id", sa.UUID(as_uuid=False), nullable=False),
        sa.Column("approval_id", sa.UUID(as_uuid=False), nullable=False),
        sa.Column("instance_id", sa.Text(), nullable=False),
        sa.Column("state", sa.Text(), nullable=False),
        sa.Column("result", sa.Text(), server_default="", nullable=False),
        sa.Column("reason", sa.Text(), server_default="", nullable=False),
        sa.Column(
            "started_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "state IN ('running', 'done', 'not_run', 'failed', 'uncertain')",
            name="executions_state",
        ),
        sa.ForeignKeyConstraint(
            ["approval_id"],
            ["approvals.approvals.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("approval_id", name="executions_one_per_approval"),
        schema="approvals",
    )
    op.create_index(
        "executions_running_by_instance",
        "executions",
        ["instance_id"],
        unique=False,
        schema="approvals",
        postgresql_where=sa.text("state = 'running'"),
    )

    # G7 in the database itself: a saved action never changes, an approval
    # leaves PENDING once, an execution starts RUNNING for an approved
    # approval only, and a final record never changes again.
    op.execute(
        """
        CREATE FUNCTION approvals.approvals_one_direction() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN
            IF OLD.state <> 'pending' AND NEW IS DISTINCT FROM OLD THEN
                RAISE EXCEPTION 'approval % is % and cannot change', OLD.id, OLD.state;
            END IF;
            IF (NEW.id, NEW.owner, NEW.task_id, NEW.account_id, NEW.app, NEW.action, NEW.summary,
                NEW.saved_action, NEW.digest, NEW.created_at, NEW.expires_at)
               IS DISTINCT FROM
               (OLD.id, OLD.owner, OLD.task_id, OLD.account_id, OLD.app, OLD.action, OLD.summary,
                OLD.saved_action, OLD.digest, OLD.created_at, OLD.expires_at) THEN
                RAISE EXCEPTION 'approval %: the saved action never changes', OLD.id;
            END IF;
            RETURN NEW;
        END $$;
        CREATE TRIGGER approvals_one_direction BEFORE UPDATE ON approvals.approvals
            FOR EACH ROW EXECUTE FUNCTION approvals.approvals_one_direction();

        CREATE FUNCTION approvals.executions_one_direction() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'INSERT' THEN
                IF NEW.state <> 'running' OR NOT EXISTS (
                    SELECT 1 FROM approvals.approvals WHERE id = NEW.approval_id AND state = 'approved'
                ) THEN
                    RAISE EXCEPTION 'an execution starts running, for an approved approval only';
                END IF;
                RETURN NEW;
            END IF;
            IF OLD.state <> 'running' AND NEW IS DISTINCT FROM OLD THEN
                RAISE EXCEPTION 'execution % is % and cannot change', OLD.id, OLD.state;
            END IF;
            IF (NEW.id, NEW.approval_id, NEW.instance_id, NEW.started_at)
               IS DISTINCT FROM (OLD.id, OLD.approval_id, OLD.instance_id, OLD.started_at) THEN
                RAISE EXCEPTION 'execution % cannot be re-pointed', OLD.id;
            END IF;
            RETURN NEW;
        END $$;
        CREATE TRIGGER executions_one_direction BEFORE INSERT OR UPDATE ON approvals.executions
            FOR EACH ROW EXECUTE FUNCTION approvals.executions_one_direction();
        """
    )


def downgrade() -> None:
    op.execute("DROP TRIGGER executions_one_direction ON approvals.executions")
    op.execute("DROP FUNCTION approvals.executions_one_direction()")
    op.execute("DROP TRIGGER approvals_one_direction ON approvals.approvals")
    op.execute("DROP FUNCTION approvals.approvals_one_direction()")
    op.drop_index(
        "executions_running_by_instance",
        table_name="executions",
        schema="approvals",
        postgresql_where=sa.text("state = 'running'"),
    )
    op.drop_table("executions", schema="approvals")
    op.drop_index("approval_events_by_approval", table_name="approval_events", schema="approvals")
    op.drop_table("approval_events", schema="approvals")
    op.drop_index(
        "approvals_pending_expiry",
        table_name="approvals",
        schema="approvals",
        postgresql_where=sa.text("state = 'pending'"),
    )
    op.drop_index("approvals_by_task", table_name="approvals", schema="approvals")
    op.drop_index("approvals_by_owner", table_name="approvals", schema="approvals")
    op.drop_table("approvals", schema="approvals")
    op.drop_table("instance_leases", schema="approvals")
    op.drop_index("accounts_by_owner", table_name="accounts", schema="approvals")
    op.drop_table("accounts", schema="approvals")
