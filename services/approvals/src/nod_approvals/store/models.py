"""The approvals service's tables, all inside the `approvals` schema."""

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB, UUID

from nod_approvals import SCHEMA
from nodkit.history import History, history_table
from nodkit.leases import Leases, leases_table

metadata = sa.MetaData(schema=SCHEMA)

NOW = sa.text("now()")
NEW_UUID = sa.text("gen_random_uuid()")


def _timestamp(name: str, **kwargs) -> sa.Column:
    return sa.Column(name, sa.DateTime(timezone=True), **kwargs)


accounts = sa.Table(
    "accounts",
    metadata,
    sa.Column("id", UUID(as_uuid=False), primary_key=True),
    sa.Column("owner", sa.Text, nullable=False),
    sa.Column("app", sa.Text, nullable=False),
    sa.Column("label", sa.Text, nullable=False),
    sa.Column("settings", JSONB, nullable=False),
    # {name: "<key id>:<base64 nonce+ciphertext>"}, sealed per owner, row and
    # name; emptied when the account is disconnected.
    sa.Column("sealed_credentials", JSONB, nullable=False),
    _timestamp("created_at", nullable=False, server_default=NOW),
    _timestamp("disconnected_at", nullable=True),
    sa.Index("accounts_by_owner", "owner", "created_at", "id"),
)

# The vault key ids the credentials name, sorted (migration 0005's
# function), indexed: the start reads which keys they are sealed under
# through it, a step per distinct set (nodkit.startup).
sa.Index("accounts_key_ids", sa.func.approvals.sealed_key_ids(accounts.c.sealed_credentials))

approvals = sa.Table(
    "approvals",
    metadata,
    sa.Column("id", UUID(as_uuid=False), primary_key=True, server_default=NEW_UUID),
    sa.Column("owner", sa.Text, nullable=False),
    sa.Column("task_id", sa.Text, nullable=False),
    # The caller's name for this proposal: a resend finds the first approval.
    sa.Column("request_id", sa.Text, nullable=False),
    sa.Column("account_id", UUID(as_uuid=False), sa.ForeignKey(accounts.c.id), nullable=False),
    sa.Column("app", sa.Text, nullable=False),
    sa.Column("action", sa.Text, nullable=False),
    sa.Column("summary", sa.Text, nullable=False),
    # The canonical JSON that will run, and its SHA-256; never change.
    sa.Column("saved_action", sa.Text, nullable=False),
    sa.Column("digest", sa.Text, nullable=False),
    sa.Column("state", sa.Text, nullable=False),
    sa.Column("reason", sa.Text, nullable=False, server_default=""),
    # The first approval of the task with the same saved action, when there
    # is one: this one's yes needs a second confirmation.
    sa.Column(
        "possible_duplicate_of",
        UUID(as_uuid=False),
        sa.ForeignKey("approvals.approvals.id", name="approvals_possible_duplicate_of_fkey"),
        nullable=True,
    ),
    _timestamp("created_at", nullable=False, server_default=NOW),
    _timestamp("expires_at", nullable=False),
    _timestamp("decided_at", nullable=True),
    _timestamp("updated_at", nullable=False, server_default=NOW),
    # When its words were erased (its person removed; migration 0006).
    _timestamp("erased_at", nullable=True),
    sa.CheckConstraint(
        "state IN ('pending', 'approved', 'rejected', 'cancelled', 'expired')",
        name="approvals_state",
    ),
    sa.CheckConstraint("digest ~ '^[0-9a-f]{64}$'", name="approvals_digest_is_sha256"),
    sa.UniqueConstraint("owner", "request_id", name="approvals_one_per_request"),
    sa.Index("approvals_by_owner", "owner", "created_at", "id"),
    sa.Index("approvals_by_task", "owner", "task_id", "created_at", "id"),
    sa.Index(
        "approvals_pending_expiry", "expires_at", postgresql_where=sa.text("state = 'pending'")
    ),
)

executions = sa.Table(
    "executions",
    metadata,
    sa.Column("id", UUID(as_uuid=False), primary_key=True),
    sa.Column("approval_id", UUID(as_uuid=False), sa.ForeignKey(approvals.c.id), nullable=False),
    # The instance running it (G12): only it, or a sweeper after its lease
    # expired, may end it.
    sa.Column("instance_id", sa.Text, nullable=False),
    sa.Column("state", sa.Text, nullable=False),
    sa.Column("result", sa.Text, nullable=False, server_default=""),
    sa.Column("reason", sa.Text, nullable=False, server_default=""),
    _timestamp("started_at", nullable=False, server_default=NOW),
    _timestamp("finished_at", nullable=True),
    # G7: one execution per approval, ever.
    sa.UniqueConstraint("approval_id", name="executions_one_per_approval"),
    sa.CheckConstraint(
        "state IN ('running', 'done', 'not_run', 'failed', 'uncertain')", name="executions_state"
    ),
    sa.Index(
        "executions_running_by_instance",
        "instance_id",
        postgresql_where=sa.text("state = 'running'"),
    ),
)

# One history for an approval and its execution; `subject` says whose change it is.
approval_events = history_table(
    metadata,
    "approval_events",
    approvals.c.id,
    "approval_id",
    sa.Column("subject", sa.Text, nullable=False),
    sa.CheckConstraint("subject IN ('approval', 'execution')", name="approval_events_subject"),
)
APPROVAL_HISTORY = History(approval_events, key="approval_id", fixed={"subject": "approval"})
# An execution's history rows are its approval's.
EXECUTION_HISTORY = History(
    approval_events, key="approval_id", record_key="approval_id", fixed={"subject": "execution"}
)

instance_leases = leases_table(metadata)
INSTANCE_LEASES = Leases(instance_leases)
