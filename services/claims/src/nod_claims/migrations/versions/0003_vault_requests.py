"""request ids of PutItem and PutPrivateEntry

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-03 10:00:00

PutItem and PutPrivateEntry take an optional request_id: a resend after a
lost answer finds the record the first request made instead of saving a
second login, card or one-time entry. Each row names that record and keeps
a keyed digest of the request's content (never a value); its primary key
(owner, request_id) makes two racing resends store one record.
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "vault_requests",
        sa.Column("owner", sa.Text(), nullable=False),
        sa.Column("request_id", sa.Text(), nullable=False),
        sa.Column("call", sa.Text(), nullable=False),
        sa.Column("record_id", sa.UUID(as_uuid=False), nullable=False),
        sa.Column("digest", sa.Text(), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint("call IN ('put_item', 'put_private_entry')", name="vault_requests_call"),
        sa.PrimaryKeyConstraint("owner", "request_id"),
        schema="claims",
    )


def downgrade() -> None:
    op.drop_table("vault_requests", schema="claims")
