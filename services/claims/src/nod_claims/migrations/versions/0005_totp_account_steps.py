"""TOTP time steps given per account, not per saved login

Revision ID: 0005_totp_accounts
Revises: 0004
Create Date: 2027-01-12 10:00:00

A one-time code is used at most once per account, whoever saved the login
and under whatever name: the steps given are now recorded under keyed
digests of the account (its site and username, and its seed), made by the
service with the vault key. This migration can't make them (it has no
key), so nothing is copied: the steps given so far stay in `totp_steps`,
which the service keeps writing and honouring beside the new table for
this release (pods of the release before, still serving during the
rollout, read only that table). A step used there stays used for its
window. Rows whose steps ended (before the one running now) protect
nothing and go now; pruning takes the rest.

A later release drops `totp_steps`.
"""

import sqlalchemy as sa
from alembic import op

revision = "0005_totp_accounts"
down_revision = "0004"
branch_labels = None
depends_on = None

SCHEMA = "claims"
PERIOD_S = 30


def upgrade() -> None:
    op.create_table(
        "totp_account_steps",
        sa.Column("account_key", sa.Text(), nullable=False),
        sa.Column("step", sa.BigInteger(), nullable=False),
        sa.Column("claim_id", sa.UUID(as_uuid=False), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("account_key", "step"),
        schema=SCHEMA,
    )
    op.create_index(
        "totp_account_steps_by_time", "totp_account_steps", ["created_at"], schema=SCHEMA
    )
    op.execute(
        f"DELETE FROM {SCHEMA}.totp_steps"
        f" WHERE step < floor(extract(epoch FROM now()) / {PERIOD_S})"
    )


def downgrade() -> None:
    # The steps given meanwhile are in totp_steps too: the release before
    # still finds them.
    op.drop_index("totp_account_steps_by_time", table_name="totp_account_steps", schema=SCHEMA)
    op.drop_table("totp_account_steps", schema=SCHEMA)
