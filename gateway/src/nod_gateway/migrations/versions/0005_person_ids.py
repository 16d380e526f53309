"""people: a stable id, never reused, that every service knows them by

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-07 07:00:00

A sign-in name can be given again once its person is removed; what a
person owns in the services must not pass to the next one with that name.
Each person now has an id no one else ever gets: it travels as x-nod-user,
and sessions and nudges name it. Everyone here before keeps their name as
their id, so what they already own in the services stays theirs with no
service's rows changed; everyone added from now on gets a random one.

It suits the release still running during the rollout: a person that
release adds gets a random id from the column's default. Only signing in
on one of its replicas as someone added after this migration fails (their
session would name them by name), until the rollout ends.
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

SCHEMA = "gateway"
ID_DEFAULT = "gen_random_uuid()::text"


def upgrade() -> None:
    op.add_column("people", sa.Column("id", sa.Text, nullable=True), schema=SCHEMA)
    op.execute(f"UPDATE {SCHEMA}.people SET id = name")
    op.alter_column(
        "people", "id", nullable=False, server_default=sa.text(ID_DEFAULT), schema=SCHEMA
    )
    op.create_unique_constraint("people_id_key", "people", ["id"], schema=SCHEMA)
    # Sessions and nudges name the person by id; the values are the same
    # (id = name above), only what they refer to moves.
    for table in ("sessions", "nudges"):
        op.drop_constraint(f"{table}_person_fkey", table, schema=SCHEMA, type_="foreignkey")
        op.create_foreign_key(
            f"{table}_person_fkey", table, "people", ["person"], ["id"],
            source_schema=SCHEMA, referent_schema=SCHEMA, ondelete="CASCADE",
        )  # fmt: skip


def downgrade() -> None:
    for table in ("sessions", "nudges"):
        op.drop_constraint(f"{table}_person_fkey", table, schema=SCHEMA, type_="foreignkey")
        # Only people whose id is their name can go back.
        op.execute(
            f"DELETE FROM {SCHEMA}.{table} t USING {SCHEMA}.people p"
            f" WHERE t.person = p.id AND p.id <> p.name"
        )
        op.create_foreign_key(
            f"{table}_person_fkey", table, "people", ["person"], ["name"],
            source_schema=SCHEMA, referent_schema=SCHEMA, ondelete="CASCADE",
        )  # fmt: skip
    op.drop_constraint("people_id_key", "people", schema=SCHEMA, type_="unique")
    op.drop_column("people", "id", schema=SCHEMA)
