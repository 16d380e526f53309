"""The claims service's tables, all inside the `claims` schema."""

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, UUID

from nod_claims import SCHEMA
from nodkit.history import History, history_table
from nodkit.leases import Leases, leases_table

metadata = sa.MetaData(schema=SCHEMA)

NOW = sa.text("now()")
NEW_UUID = sa.text("gen_random_uuid()")

vault_items = sa.Table(
    "vault_items",
    metadata,
    sa.Column("id", UUID(as_uuid=False), primary_key=True, server_default=NEW_UUID),
    sa.Column("owner", sa.Text, nullable=False),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("label", sa.Text, nullable=False),
    sa.Column("origin", sa.Text, nullable=True),
    # Logins: the other sites the person said the login is for (G13).
    sa.Column("equivalent_origins", ARRAY(sa.Text), nullable=False, server_default=sa.text("'{}'")),
    # What listing shows; computed when the item is written, never decrypted.
    sa.Column("masked_fields", JSONB, nullable=False),
    # {field: "<key id>:<base64 nonce+ciphertext>"}, sealed per owner, item and field.
    sa.Column("sealed_fields", JSONB, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=NOW),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False, server_default=NOW),
    sa.CheckConstraint("kind IN ('saved_login', 'card')", name="vault_items_kind"),
    sa.Index("vault_items_owner", "owner", "created_at"),
)

private_entries = sa.Table(
    "private_entries",
    metadata,
    sa.Column("id", UUID(as_uuid=False), primary_key=True, server_default=NEW_UUID),
    sa.Column("owner", sa.Text, nullable=False),
    sa.Column("task_id", sa.Text, nullable=False),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("sealed_fields", JSONB, nullable=False),
    # The top page and frame the private form was asked for: the only place
    # a one-time code or typed password is granted for (G13). NULL for a
    # security code, which goes with its card under the card's binding.
    sa.Column("origin", sa.Text, nullable=True),
    sa.Column("frame_origin", sa.Text, nullable=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=NOW),
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint(
        "kind IN ('one_time_code', 'typed_password', 'security_code')", name="private_entries_kind"
    ),
    sa.Index("private_entries_task", "owner", "task_id"),
    sa.Index("private_entries_expiry", "expires_at"),
)

# The request ids of PutItem and PutPrivateEntry (one namespace per person):
# which record each made, and a keyed digest of what it carried (never the
# values). The unique key decides between two resends that race; the row
# outlives its record (a one-time entry is gone once used), so a resend
# after that still finds the first answer and stores nothing.
vault_requests = sa.Table(
    "vault_requests",
    metadata,
    sa.Column("owner", sa.Text, primary_key=True),
    sa.Column("request_id", sa.Text, primary_key=True),
    sa.Column("call", sa.Text, nullable=False),
    sa.Column("record_id", UUID(as_uuid=False), nullable=False),
    # nodkit.crypto.Sealer.digest of the request's content.
    sa.Column("digest", sa.Text, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=NOW),
    sa.CheckConstraint("call IN ('put_item', 'put_private_entry')", name="vault_requests_call"),
    # Pruned oldest first (nod_claims.pruning).
    sa.Index("vault_requests_by_time", "created_at"),
)

# The vault key ids a sealed column's values name, sorted (migration 0007's
# function), indexed per sealed table: the start reads which keys the vault
# holds values under through these, a step per distinct set (nodkit.startup).
sa.Index("vault_items_key_ids", sa.func.claims.sealed_key_ids(vault_items.c.sealed_fields))
sa.Index("private_entries_key_ids", sa.func.claims.sealed_key_ids(private_entries.c.sealed_fields))

claims = sa.Table(
    "claims",
    metadata,
    sa.Column("id", UUID(as_uuid=False), primary_key=True, server_default=NEW_UUID),
    sa.Column("owner", sa.Text, nullable=False),
    sa.Column("operation_id", sa.Text, nullable=False),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("item_id", UUID(as_uuid=False), nullable=False),
    sa.Column("companion_entry_id", UUID(as_uuid=False), nullable=True),
    sa.Column("origin", sa.Text, nullable=False),
    # Where the values went besides the top page (G13); NULL in claims made
    # before they were recorded, and submit_origin when nothing was pressed.
    sa.Column("frame_origin", sa.Text, nullable=True),
    sa.Column("submit_origin", sa.Text, nullable=True),
    sa.Column("task_id", sa.Text, nullable=False),
    sa.Column("holder", sa.Text, nullable=False),
    sa.Column("state", sa.Text, nullable=False),
    sa.Column("check_result", sa.Text, nullable=True),
    sa.Column("reason", sa.Text, nullable=False, server_default=""),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=NOW),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False, server_default=NOW),
    # G2: one claim per operation, forever.
    sa.UniqueConstraint("owner", "operation_id", name="claims_one_per_operation"),
    sa.CheckConstraint("state IN ('running', 'submitted', 'uncertain')", name="claims_state"),
    sa.CheckConstraint(
        "check_result IS NULL OR (state = 'submitted'"
        " AND check_result IN ('worked', 'did_not_work', 'unclear'))",
        name="claims_check_only_when_submitted",
    ),
    sa.Index("claims_by_task", "owner", "task_id", "created_at", "id"),
    sa.Index("claims_by_owner", "owner", "created_at", "id"),
    sa.Index("claims_running_by_holder", "holder", postgresql_where=sa.text("state = 'running'")),
)

# Where a card may be entered under one card operation (G13): registered by
# the payments service when the card entry starts, once per operation, and
# never changed. A card claim is granted only under its binding. Kept, not
# pruned: one small row per card payment, part of the record of where a card
# was allowed, as the claims it governs are (and pruning one would let its
# operation id be bound anew).
card_bindings = sa.Table(
    "card_bindings",
    metadata,
    sa.Column("owner", sa.Text, primary_key=True),
    sa.Column("operation_id", sa.Text, primary_key=True),
    sa.Column("item_id", UUID(as_uuid=False), nullable=False),
    sa.Column("task_id", sa.Text, nullable=False),
    sa.Column("merchant_origin", sa.Text, nullable=False),
    sa.Column(
        "hosted_payment_origins", ARRAY(sa.Text), nullable=False, server_default=sa.text("'{}'")
    ),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=NOW),
)

claim_events = history_table(metadata, "claim_events", claims.c.id, "claim_id")
CLAIM_HISTORY = History(claim_events, key="claim_id")

# The TOTP time steps whose codes were given, per account: each is given
# once (a site must refuse a code used before, whoever typed it). An account
# has several keys, each a keyed digest (nodkit.crypto.Sealer.digests): of
# its site and username, and of its seed, under each vault key listed. A
# step is taken under all of them at once. Never the username or the seed.
totp_account_steps = sa.Table(
    "totp_account_steps",
    metadata,
    sa.Column("account_key", sa.Text, primary_key=True),
    sa.Column("step", sa.BigInteger, primary_key=True),
    sa.Column("claim_id", UUID(as_uuid=False), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=NOW),
    # Pruned oldest first (nod_claims.pruning).
    sa.Index("totp_account_steps_by_time", "created_at"),
)

# The same steps per saved login, as releases before the account ledger kept
# them. Still written beside it for one release, since a pod of the release
# before reads only this during a rollout; dropped in the release after.
totp_steps = sa.Table(
    "totp_steps",
    metadata,
    sa.Column("owner", sa.Text, primary_key=True),
    sa.Column("item_id", UUID(as_uuid=False), primary_key=True),
    sa.Column("step", sa.BigInteger, primary_key=True),
    sa.Column("claim_id", UUID(as_uuid=False), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=NOW),
    # Pruned oldest first (nod_claims.pruning).
    sa.Index("totp_steps_by_time", "created_at"),
)

# The leases of the runners holding claims (renewed by RenewHolder).
holders = leases_table(metadata, "holders", key="holder")
HOLDER_LEASES = Leases(holders)
