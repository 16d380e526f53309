"""TOTP time steps granted per saved login

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02 14:00:00

A code computed from a saved login's TOTP seed is used at most once per
account: the claims service records each time step it grants a code for,
and a second sign-in in the same window gets the next step's code.
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "totp_steps",
        sa.Column("owner", sa.Text(), nullable=False),
        sa.Column("item_id", sa.UUID(as_uuid=False), nullable=False),
        sa.Column("step", sa.BigInteger(), nullable=False),
        sa.Column("claim_id", sa.UUID(as_uuid=False), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("owner", "item_id", "step"),
        schema="claims",
    )


def downgrade() -> None:
    op.drop_table("totp_steps", schema="claims")
