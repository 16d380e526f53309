"""people, sessions, sign-in attempts

Revision ID: 0001
Revises:
Create Date: 2026-12-01 12:30:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

SCHEMA = "gateway"


def upgrade() -> None:
    op.create_table(
        "people",
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("password_hash", sa.Text(), nullable=False),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.PrimaryKeyConstraint("name"),
        schema=SCHEMA,
    )
    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.LargeBinary(), nullable=False),
        sa.Column("person", sa.Text(), nullable=False),
        sa.Column("csrf_token", sa.Text(), nullable=False),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["person"], [f"{SCHEMA}.people.name"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("token_hash"),
        schema=SCHEMA,
    )
    op.create_table(
        "sign_in_attempts",
        sa.Column("id", sa.BigInteger(), sa.Identity(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("address", sa.Text(), nullable=False),
        sa.Column("succeeded", sa.Boolean(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        schema=SCHEMA,
    )
    op.create_index("sign_in_attempts_by_name", "sign_in_attempts", ["name", "at"], schema=SCHEMA)
    op.create_index(
        "sign_in_attempts_by_address", "sign_in_attempts", ["address", "at"], schema=SCHEMA
    )


def downgrade() -> None:
    op.drop_table("sign_in_attempts", schema=SCHEMA)
    op.drop_table("sessions", schema=SCHEMA)
    op.drop_table("people", schema=SCHEMA)
