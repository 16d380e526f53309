"""payments.request_id: a resent CreatePayment finds the payment its first
request made (one per person and request id)

Payments made before have no request id (NULL), and NULLs never collide.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01 10:00:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("payments", sa.Column("request_id", sa.Text(), nullable=True), schema="payments")
    op.create_unique_constraint(
        "payments_one_per_request", "payments", ["owner", "request_id"], schema="payments"
    )


def downgrade() -> None:
    op.drop_constraint("payments_one_per_request", "payments", schema="payments", type_="unique")
    op.drop_column("payments", "request_id", schema="payments")
