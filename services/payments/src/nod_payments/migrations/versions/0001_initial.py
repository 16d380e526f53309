"""payments, payment events, limits, instance leases

Revision ID: 0001
Revises:
Create Date: 2026-11-30 06:57:06.381215
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
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
        schema="payments",
    )
    op.create_table(
        "payment_limits",
        sa.Column("owner", sa.Text(), nullable=False),
        sa.Column("max_single_minor", sa.BigInteger(), nullable=True),
        sa.Column("max_daily_minor", sa.BigInteger(), nullable=True),
        sa.Column("currency", sa.Text(), nullable=False),
        sa.Column(
            "updated_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint("currency ~ '^[A-Z]{3}$'", name="payment_limits_currency_iso"),
        sa.CheckConstraint(
            "max_daily_minor IS NULL OR max_daily_minor > 0", name="payment_limits_daily_positive"
        ),
        sa.CheckConstraint(
            "max_single_minor IS NULL OR max_single_minor > 0",
            name="payment_limits_single_positive",
        ),
        sa.PrimaryKeyConstraint("owner"),
        schema="payments",
    )
    op.create_table(
        "payments",
        sa.Column(
            "id",
            sa.UUID(as_uuid=False),
            server_default=sa.text("gen_random_uuid()"),
            nullable=False,
        ),
        sa.Column("owner", sa.Text(), nullable=False),
        sa.Column("task_id", sa.Text(), nullable=False),
        sa.Column("merchant_origin", sa.Text(), nullable=False),
        sa.Column("amount_minor", sa.BigInteger(), nullable=False),
        sa.Column("currency", sa.Text(), nullable=False),
        sa.Column("description", sa.Text(), server_default="", nullable=False),
        sa.Column("card_item_id", sa.UUID(as_uuid=False), nullable=False),
        sa.Column("card_label", sa.Text(), nullable=False),
        sa.Column("order_reference", sa.Text(), nullable=True),
        sa.Column("repeat_of_payment_id", sa.UUID(as_uuid=False), nullable=True),
        sa.Column("order_key", sa.Text(), nullable=False),
        sa.Column("state", sa.Text(), nullable=False),
        sa.Column("outcome", sa.Text(), nullable=True),
        sa.Column("card_operation_id", sa.Text(), nullable=True),
        sa.Column("claim_id", sa.UUID(as_uuid=False), nullable=True),
        sa.Column("runner_instance", sa.Text(), nullable=True),
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
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("confirmed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("currency ~ '^[A-Z]{3}$'", name="payments_currency_iso"),
        sa.CheckConstraint(
            "outcome IS NULL OR (state = 'submitted' AND outcome IN ('paid', 'declined', 'unknown'))",
            name="payments_outcome_only_when_submitted",
        ),
        sa.CheckConstraint(
            "state <> 'running' OR (runner_instance IS NOT NULL AND card_operation_id IS NOT NULL)",
            name="payments_running_has_runner",
        ),
        sa.CheckConstraint(
            "state IN ('awaiting_confirmation', 'confirmed', 'running', 'submitted', 'uncertain', 'refused', 'cancelled', 'expired')",
            name="payments_state",
        ),
        sa.CheckConstraint("amount_minor > 0", name="payments_amount_positive"),
        sa.ForeignKeyConstraint(
            ["repeat_of_payment_id"], ["payments.payments.id"], name="payments_repeat_of"
        ),
        sa.PrimaryKeyConstraint("id"),
        schema="payments",
    )
    op.create_index(
        "payments_awaiting_by_expiry",
        "payments",
        ["expires_at"],
        unique=False,
        schema="payments",
        postgresql_where=sa.text("state = 'awaiting_confirmation'"),
    )
    op.create_index(
        "payments_by_owner",
        "payments",
        ["owner", "created_at", "id"],
        unique=False,
        schema="payments",
    )
    op.create_index(
        "payments_by_task",
        "payments",
        ["owner", "task_id", "created_at", "id"],
        unique=False,
        schema="payments",
    )
    op.create_index(
        "payments_confirmed_by_owner",
        "payments",
        ["owner", "confirmed_at"],
        unique=False,
        schema="payments",
        postgresql_where=sa.text("confirmed_at IS NOT NULL"),
    )
    op.create_index(
        "payments_one_live_per_order",
        "payments",
        ["owner", "order_key"],
        unique=True,
        schema="payments",
        postgresql_where=sa.text("state NOT IN ('refused', 'cancelled', 'expired')"),
    )
    op.create_index(
        "payments_running_by_runner",
        "payments",
        ["runner_instance"],
        unique=False,
        schema="payments",
        postgresql_where=sa.text("state = 'running'"),
    )
    op.create_table(
        "payment_events",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column("payment_id", sa.UUID(as_uuid=False), nullable=False),
        sa.Column(
            "at", sa.DateTime(timezone=True), server_default=sa.text("now()"), nullable=False
        ),
        sa.Column("actor", sa.Text(), nullable=False),
        sa.Column("from_state", sa.Text(), nullable=True),
        sa.Column("to_state", sa.Text(), nullable=False),
        sa.Column("reason", sa.Text(), server_default="", nullable=False),
        sa.ForeignKeyConstraint(
            ["payment_id"],
            ["payments.payments.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        schema="payments",
    )
    op.create_index(
        "payment_events_by_payment",
        "payment_events",
        ["payment_id", "id"],
        unique=False,
        schema="payments",
    )


def downgrade() -> None:
    op.drop_index("payment_events_by_payment", table_name="payment_events", schema="payments")
    op.drop_table("payment_events", schema="payments")
    op.drop_index(
        "payments_running_by_runner",
        table_name="payments",
        schema="payments",
        postgresql_where=sa.text("state = 'running'"),
    )
    op.drop_index(
        "payments_one_live_per_order",
        table_name="payments",
        schema="payments",
        postgresql_where=sa.text("state NOT IN ('refused', 'cancelled', 'expired')"),
    )
    op.drop_index(
        "payments_confirmed_by_owner",
        table_name="payments",
        schema="payments",
        postgresql_where=sa.text("confirmed_at IS NOT NULL"),
    )
    op.drop_index("payments_by_task", table_name="payments", schema="payments")
    op.drop_index("payments_by_owner", table_name="payments", schema="payments")
    op.drop_index(
        "payments_awaiting_by_expiry",
        table_name="payments",
        schema="payments",
        postgresql_where=sa.text("state = 'awaiting_confirmation'"),
    )
    op.drop_table("payments", schema="payments")
    op.drop_table("payment_limits", schema="payments")
    op.drop_table("instance_leases", schema="payments")
