"""payments.hosted_payment_origins: where else the card may be entered (G13)

A payment may name hosted payment pages elsewhere than the merchant (a
checkout that sends the person to its provider); the person sees them with
the payment, and the card entry is bound to them and the merchant when it
starts. Payments made before name none.

Revision ID: 0005
Revises: 0004
Create Date: 2027-01-12 10:00:00
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import ARRAY

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "payments",
        sa.Column(
            "hosted_payment_origins",
            ARRAY(sa.Text()),
            server_default=sa.text("'{}'"),
            nullable=False,
        ),
        schema="payments",
    )


def downgrade() -> None:
    op.drop_column("payments", "hosted_payment_origins", schema="payments")
