"""The payments service's tables, all inside the `payments` schema."""

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import ARRAY, UUID

from nod_payments import SCHEMA
from nodkit.history import History, history_table
from nodkit.leases import Leases, leases_table

metadata = sa.MetaData(schema=SCHEMA)

NOW = sa.text("now()")
NEW_UUID = sa.text("gen_random_uuid()")
STATES = (
    "'awaiting_confirmation', 'confirmed', 'running', 'submitted', 'uncertain',"
    " 'refused', 'cancelled', 'expired'"
)
# A payment in one of these can never be paid, so it holds no order.
DEAD_STATES = "'refused', 'cancelled', 'expired'"


def _timestamp(name: str, **kwargs) -> sa.Column:
    return sa.Column(name, sa.DateTime(timezone=True), **kwargs)


payments = sa.Table(
    "payments",
    metadata,
    sa.Column("id", UUID(as_uuid=False), primary_key=True, server_default=NEW_UUID),
    sa.Column("owner", sa.Text, nullable=False),
    sa.Column("task_id", sa.Text, nullable=False),
    sa.Column("merchant_origin", sa.Text, nullable=False),
    sa.Column("amount_minor", sa.BigInteger, nullable=False),
    sa.Column("currency", sa.Text, nullable=False),
    sa.Column("description", sa.Text, nullable=False, server_default=""),
    sa.Column("card_item_id", UUID(as_uuid=False), nullable=False),
    sa.Column("card_label", sa.Text, nullable=False),
    sa.Column("order_reference", sa.Text, nullable=True),
    sa.Column("repeat_of_payment_id", UUID(as_uuid=False), nullable=True),
    # Hosted payment pages elsewhere than the merchant that the yes names
    # (G13): the card is bound to them and the merchant when its entry starts.
    sa.Column(
        "hosted_payment_origins", ARRAY(sa.Text), nullable=False, server_default=sa.text("'{}'")
    ),
    # The caller's id for the request that made it: a resend finds this row.
    # NULL only for payments made before request ids (migration 0002).
    sa.Column("request_id", sa.Text, nullable=True),
    # Digests of what makes two payments "the same order" (domain/orders.py):
    # the merchant, amount and currency within the task, and the site's
    # order number when there is one.
    sa.Column("order_key", sa.Text, nullable=False),
    sa.Column("reference_key", sa.Text, nullable=True),
    sa.Column("state", sa.Text, nullable=False),
    sa.Column("outcome", sa.Text, nullable=True),
    sa.Column("card_operation_id", sa.Text, nullable=True),
    sa.Column("claim_id", UUID(as_uuid=False), nullable=True),
    # The instance running the card entry: only it (or a sweeper, once its
    # lease expired) may end a RUNNING payment as UNCERTAIN on its own.
    sa.Column("runner_instance", sa.Text, nullable=True),
    sa.Column("reason", sa.Text, nullable=False, server_default=""),
    _timestamp("created_at", nullable=False, server_default=NOW),
    _timestamp("updated_at", nullable=False, server_default=NOW),
    _timestamp("expires_at", nullable=False),
    _timestamp("confirmed_at", nullable=True),
    _timestamp("started_at", nullable=True),
    sa.ForeignKeyConstraint(
        ["repeat_of_payment_id"], ["payments.payments.id"], name="payments_repeat_of"
    ),
    sa.UniqueConstraint("owner", "request_id", name="payments_one_per_request"),
    sa.CheckConstraint(f"state IN ({STATES})", name="payments_state"),
    sa.CheckConstraint("amount_minor > 0", name="payments_amount_positive"),
    sa.CheckConstraint("currency ~ '^[A-Z]{3}$'", name="payments_currency_iso"),
    sa.CheckConstraint(
        "outcome IS NULL OR (state = 'submitted' AND outcome IN ('paid', 'declined', 'unknown'))",
        name="payments_outcome_only_when_submitted",
    ),
    sa.CheckConstraint(
        "state <> 'running' OR (runner_instance IS NOT NULL AND card_operation_id IS NOT NULL)",
        name="payments_running_has_runner",
    ),
    # The same order is paid at most once (G8): one live payment per order key.
    sa.Index(
        "payments_one_live_per_order",
        "owner",
        "order_key",
        unique=True,
        postgresql_where=sa.text(f"state NOT IN ({DEAD_STATES})"),
    ),
    sa.Index(
        "payments_one_live_per_reference",
        "owner",
        "reference_key",
        unique=True,
        postgresql_where=sa.text(f"state NOT IN ({DEAD_STATES})"),
    ),
    sa.Index("payments_by_task", "owner", "task_id", "created_at", "id"),
    sa.Index("payments_by_owner", "owner", "created_at", "id"),
    sa.Index(
        "payments_running_by_runner",
        "runner_instance",
        postgresql_where=sa.text("state = 'running'"),
    ),
    sa.Index(
        "payments_awaiting_by_expiry",
        "expires_at",
        postgresql_where=sa.text("state = 'awaiting_confirmation'"),
    ),
    sa.Index(
        "payments_confirmed_by_owner",
        "owner",
        "confirmed_at",
        postgresql_where=sa.text("confirmed_at IS NOT NULL"),
    ),
)

payment_events = history_table(metadata, "payment_events", payments.c.id, "payment_id")
PAYMENT_HISTORY = History(payment_events, key="payment_id")

payment_limits = sa.Table(
    "payment_limits",
    metadata,
    sa.Column("owner", sa.Text, primary_key=True),
    sa.Column("max_single_minor", sa.BigInteger, nullable=True),
    sa.Column("max_daily_minor", sa.BigInteger, nullable=True),
    sa.Column("currency", sa.Text, nullable=False),
    _timestamp("updated_at", nullable=False, server_default=NOW),
    sa.CheckConstraint("currency ~ '^[A-Z]{3}$'", name="payment_limits_currency_iso"),
    sa.CheckConstraint(
        "max_single_minor IS NULL OR max_single_minor > 0", name="payment_limits_single_positive"
    ),
    sa.CheckConstraint(
        "max_daily_minor IS NULL OR max_daily_minor > 0", name="payment_limits_daily_positive"
    ),
)

# Each instance's lease: its RUNNING payments are swept only once it lapsed.
instance_leases = leases_table(metadata)
INSTANCE_LEASES = Leases(instance_leases)
