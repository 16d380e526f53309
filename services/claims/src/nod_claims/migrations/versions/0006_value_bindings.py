"""where each private value may go (G13)

Revision ID: 0006_value_bindings
Revises: 0005_totp_accounts
Create Date: 2027-01-12 10:00:00

A saved login gains the other sites the person says it is for; a one-time
entry, the top page and frame its private form was asked for; a claim,
the frame and the submission's origin it was made for; and card entries
get their bindings (where the card may go, registered by the payments
service when the entry starts). All are new nullable or defaulted columns
and a new table: nothing is rewritten, and claims made before keep working.
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import ARRAY

revision = "0006_value_bindings"
down_revision = "0005_totp_accounts"
branch_labels = None
depends_on = None

SCHEMA = "claims"


def upgrade() -> None:
    op.add_column(
        "vault_items",
        sa.Column(
            "equivalent_origins",
            ARRAY(sa.Text()),
            server_default=sa.text("'{}'"),
            nullable=False,
        ),
        schema=SCHEMA,
    )
    op.add_column("private_entries", sa.Column("origin", sa.Text(), nullable=True), schema=SCHEMA)
    op.add_column(
        "private_entries", sa.Column("frame_origin", sa.Text(), nullable=True), schema=SCHEMA
    )
    op.add_column("claims", sa.Column("frame_origin", sa.Text(), nullable=True), schema=SCHEMA)
    op.add_column("claims", sa.Column("submit_origin", sa.Text(), nullable=True), schema=SCHEMA)
    op.create_table(
        "card_bindings",
        sa.Column("owner", sa.Text(), nullable=False),
        sa.Column("operation_id", sa.Text(), nullable=False),
        sa.Column("item_id", sa.UUID(as_uuid=False), nullable=False),
        sa.Column("task_id", sa.Text(), nullable=False),
        sa.Column("merchant_origin", sa.Text(), nullable=False),
        sa.Column(
            "hosted_payment_origins",
            ARRAY(sa.Text()),
            server_default=sa.text("'{}'"),
            nullable=False,
        ),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("owner", "operation_id"),
        schema=SCHEMA,
    )


def downgrade() -> None:
    op.drop_table("card_bindings", schema=SCHEMA)
    op.drop_column("claims", "submit_origin", schema=SCHEMA)
    op.drop_column("claims", "frame_origin", schema=SCHEMA)
    op.drop_column("private_entries", "frame_origin", schema=SCHEMA)
    op.drop_column("private_entries", "origin", schema=SCHEMA)
    op.drop_column("vault_items", "equivalent_origins", schema=SCHEMA)
