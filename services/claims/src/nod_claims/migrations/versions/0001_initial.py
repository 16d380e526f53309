"""claims, claim events, holders, vault items, private entries

Revision ID: 0001
Revises:
Create Date: 2026-11-30 06:49:12.453754
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
        "claims",
        sa.Column(
            "id",
            sa.UUID(as_uuid=False),
            server_default=sa.text("gen_random_uuid()"),
            nullable=False,
        ),
        sa.Column("owner", sa.Text(), nullable=False),
        sa.Column("operation_id", sa.Text(), nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("item_id", sa.UUID(as_uuid=False), nullable=False),
        sa.Column("companion_entry_id", sa.UUID(as_uuid=False), nullable=True),
        sa.Column("origin", sa.Text(), nullable=False),
        sa.Column("task_id", sa.Text(), nullable=False),
        sa.Column("holder", sa.Text(), nullable=False),
        sa.Column("state", sa.Text(), nullable=False),
        sa.Column("check_result", sa.Text(), nullable=True),
        sa.Column("reason", sa.Text(), server_default="", nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column(
            "updated_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint(
            "check_result IS NULL OR (state = 'submitted' AND check_result IN ('worked', 'did_not_work', 'unclear'))",
            name="claims_check_only_when_submitted",
        ),
        sa.CheckConstraint("state IN ('running', 'submitted', 'uncertain')", name="claims_state"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("owner", "operation_id", name="claims_one_per_operation"),
        schema="claims",
    )
    op.create_index(
        "claims_by_owner",
        "claims",
        ["owner", "created_at", "id"],
        unique=False,
        schema="claims",
    )
    op.create_index(
        "claims_by_task",
        "claims",
        ["owner", "task_id", "created_at", "id"],
        unique=False,
        schema="claims",
    )
    op.create_index(
        "claims_running_by_holder",
        "claims",
        ["holder"],
        unique=False,
        schema="claims",
        postgresql_where=sa.text("state = 'running'"),
    )
    op.create_table(
        "holders",
        sa.Column("holder", sa.Text(), nullable=False),
        sa.Column("lease_expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column(
            "renewed_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("holder"),
        schema="claims",
    )
    op.create_table(
        "private_entries",
        sa.Column(
            "id",
            sa.UUID(as_uuid=False),
            server_default=sa.text("gen_random_uuid()"),
            nullable=False,
        ),
        sa.Column("owner", sa.Text(), nullable=False),
        sa.Column("task_id", sa.Text(), nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("sealed_fields", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "kind IN ('one_time_code', 'typed_password', 'security_code')",
            name="private_entries_kind",
        ),
        sa.PrimaryKeyConstraint("id"),
        schema="claims",
    )
    op.create_index(
        "private_entries_expiry",
        "private_entries",
        ["expires_at"],
        unique=False,
        schema="claims",
    )
    op.create_index(
        "private_entries_task",
        "private_entries",
        ["owner", "task_id"],
        unique=False,
        schema="claims",
    )
    op.create_table(
        "vault_items",
        sa.Column(
            "id",
            sa.UUID(as_uuid=False),
            server_default=sa.text("gen_random_uuid()"),
            nullable=False,
        ),
        sa.Column("owner", sa.Text(), nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("label", sa.Text(), nullable=False),
        sa.Column("origin", sa.Text(), nullable=True),
        sa.Column("masked_fields", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("sealed_fields", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column(
            "updated_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint("kind IN ('saved_login', 'card')", name="vault_items_kind"),
        sa.PrimaryKeyConstraint("id"),
        schema="claims",
    )
    op.create_index(
        "vault_items_owner",
        "vault_items",
        ["owner", "created_at"],
        unique=False,
        schema="claims",
    )
    op.create_table(
        "claim_events",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column("claim_id", sa.UUID(as_uuid=False), nullable=False),
        sa.Column(
            "at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column("actor", sa.Text(), nullable=False),
        sa.Column("from_state", sa.Text(), nullable=True),
        sa.Column("to_state", sa.Text(), nullable=False),
        sa.Column("reason", sa.Text(), server_default="", nullable=False),
        sa.ForeignKeyConstraint(
            ["claim_id"],
            ["claims.claims.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        schema="claims",
    )
    op.create_index(
        "claim_events_by_claim",
        "claim_events",
        ["claim_id", "id"],
        unique=False,
        schema="claims",
    )
    # G3 in the database itself: a final claim never changes state again, and
    # what a claim is for never changes.
    op.execute(
        """
        CREATE FUNCTION claims.claims_one_direction() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN
            IF OLD.state <> 'running' AND NEW.state IS DISTINCT FROM OLD.state THEN
                RAISE EXCEPTION 'claim % is % and cannot become %', OLD.id, OLD.state, NEW.state;
            END IF;
            IF (NEW.owner, NEW.operation_id, NEW.kind, NEW.item_id, NEW.origin, NEW.task_id, NEW.holder)
               IS DISTINCT FROM
               (OLD.owner, OLD.operation_id, OLD.kind, OLD.item_id, OLD.origin, OLD.task_id, OLD.holder)
               OR NEW.companion_entry_id IS DISTINCT FROM OLD.companion_entry_id THEN
                RAISE EXCEPTION 'claim % cannot be re-pointed', OLD.id;
            END IF;
            RETURN NEW;
        END $$;
        CREATE TRIGGER claims_one_direction BEFORE UPDATE ON claims.claims
            FOR EACH ROW EXECUTE FUNCTION claims.claims_one_direction();
        """
    )


def downgrade() -> None:
    op.execute("DROP TRIGGER claims_one_direction ON claims.claims")
    op.execute("DROP FUNCTION claims.claims_one_direction()")
    op.drop_index("claim_events_by_claim", table_name="claim_events", schema="claims")
    op.drop_table("claim_events", schema="claims")
    op.drop_index("vault_items_owner", table_name="vault_items", schema="claims")
    op.drop_table("vault_items", schema="claims")
    op.drop_index("private_entries_task", table_name="private_entries", schema="claims")
    op.drop_index("private_entries_expiry", table_name="private_entries", schema="claims")
    op.drop_table("private_entries", schema="claims")
    op.drop_table("holders", schema="claims")
    op.drop_index(
        "claims_running_by_holder",
        table_name="claims",
        schema="claims",
        postgresql_where=sa.text("state = 'running'"),
    )
    op.drop_index("claims_by_task", table_name="claims", schema="claims")
    op.drop_index("claims_by_owner", table_name="claims", schema="claims")
    op.drop_table("claims", schema="claims")
