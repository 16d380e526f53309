"""each sealed row's vault key ids, indexed

Revision ID: 0007_sealed_key_ids
Revises: 0006_value_bindings
Create Date: 2026-12-06 14:00:00

The service refuses to start while the vault holds values sealed under a
key NOD_VAULT_KEY does not list (nodkit.startup.check_vault_keys): they
would show as saved and fail only when used. To tell which keys the
values name without reading every row at each start, a function of a
sealed column gives the sorted key ids its values name (`id:...`), and an
index on it per sealed table lets the start read each distinct set once,
a step through the index per set (a loose index scan: some
milliseconds, whatever the table's size). `nodctl vault drop-unreadable`
finds the rows under a lost key through the same index.

The function is immutable (it reads only its argument), as an index
needs; a value that is no JSON object names no keys (NULL). Sorting is
by byte (COLLATE "C"), so no collation change reorders an indexed array.
Pods of the release before write as they did: the index follows them.
"""

import sqlalchemy as sa
from alembic import op

revision = "0007_sealed_key_ids"
down_revision = "0006_value_bindings"
branch_labels = None
depends_on = None

SCHEMA = "claims"
SEALED = (("vault_items", "sealed_fields"), ("private_entries", "sealed_fields"))


def upgrade() -> None:
    op.execute(
        f"""
        CREATE FUNCTION {SCHEMA}.sealed_key_ids(sealed jsonb) RETURNS text[]
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
            SELECT CASE WHEN jsonb_typeof(sealed) = 'object' THEN ARRAY(
                SELECT DISTINCT split_part(value, ':', 1) COLLATE "C"
                FROM jsonb_each_text(sealed) ORDER BY 1
            ) END
        $$
        """
    )
    for table, column in SEALED:
        op.create_index(
            f"{table}_key_ids",
            table,
            [sa.text(f"{SCHEMA}.sealed_key_ids({column})")],
            schema=SCHEMA,
        )


def downgrade() -> None:
    for table, _ in SEALED:
        op.drop_index(f"{table}_key_ids", table_name=table, schema=SCHEMA)
    op.execute(f"DROP FUNCTION {SCHEMA}.sealed_key_ids(jsonb)")
