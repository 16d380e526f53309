"""the same order: the merchant, amount and currency within a task, or the
site's order number, whatever the description says

Every payment's order key is recomputed and the new reference key filled,
with the rule of nod_payments.domain.orders as of this revision (copied
here, so later changes to the service's code can't change what this
migration did).

Live payments that were allowed before and now name one order: one of them
keeps the order (the earliest whose card entry started, else the earliest);
of the others, those whose card entry had not started (awaiting the yes, or
confirmed) are cancelled, with the reason and a history row, since paying
them would pay the order twice; those already running, submitted or
uncertain may have reached the merchant, so they are left as they are, each
with a key of its own so the unique indexes hold. A new request for the
order then meets the payment that kept it.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 11:00:00
"""

import base64
import hashlib
import json
from collections import defaultdict

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

LIVE = sa.text("state NOT IN ('refused', 'cancelled', 'expired')")
DEAD_STATES = {"refused", "cancelled", "expired"}
NOT_STARTED = {"awaiting_confirmation", "confirmed"}
ACTOR = "migration:0003"
CANCELLED = (
    "another payment in this task is for the same merchant, amount and currency (or order"
    " number), and an order is paid once; to pay again, ask for a repeat of that payment"
)
KEY_COLUMNS = ("order_key", "reference_key")


def _digest(parts: list) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(json.dumps(parts).encode()).digest()).decode()


def _contents(row) -> list[str]:
    return [row.task_id, row.merchant_origin, str(row.amount_minor), row.currency]


def _reference(row) -> list[str] | None:
    number = "".join(c for c in (row.order_reference or "").casefold() if c.isalnum())
    return [row.task_id, row.merchant_origin, number] if number else None


def _keys(row, repeated) -> dict[str, str | None]:
    def marked(kind, parts, same):
        repeat = ["repeat of", str(repeated.id)] if repeated is not None and same else []
        return _digest([kind, *parts, *repeat])

    reference = _reference(row)
    same_contents = repeated is not None and _contents(row) == _contents(repeated)
    same_reference = repeated is not None and reference is not None
    same_reference = same_reference and reference == _reference(repeated)
    return {
        "order_key": marked("contents", _contents(row), same_contents),
        "reference_key": marked("reference", reference, same_reference) if reference else None,
    }


def _index(name: str, column: str) -> None:
    op.create_index(
        name, "payments", ["owner", column], unique=True, schema="payments", postgresql_where=LIVE
    )


def _cancel(bind, row) -> None:
    bind.execute(
        sa.text(
            "UPDATE payments.payments SET state = 'cancelled', reason = :reason,"
            " updated_at = now() WHERE id = :id AND state = :state"
        ),
        {"id": row.id, "state": row.state, "reason": CANCELLED},
    )
    bind.execute(
        sa.text(
            "INSERT INTO payments.payment_events (payment_id, actor, from_state, to_state, reason)"
            " VALUES (:id, :actor, :state, 'cancelled', :reason)"
        ),
        {"id": row.id, "actor": ACTOR, "state": row.state, "reason": CANCELLED},
    )


def _settle_collisions(bind, rows, keys) -> None:
    """Live payments sharing a key: one keeps it, the others are cancelled
    (not started) or keep existing under a key of their own (started)."""
    live = [row for row in rows if row.state not in DEAD_STATES]
    for column in KEY_COLUMNS:
        holders = defaultdict(list)
        for row in live:
            if keys[row.id][column] is not None:
                holders[(row.owner, keys[row.id][column])].append(row)
        for group in holders.values():
            # Started ones first (they may have reached the merchant), then the earliest.
            group.sort(key=lambda r: (r.state in NOT_STARTED, r.created_at, str(r.id)))
            for row in group[1:]:
                if row.state in NOT_STARTED:
                    _cancel(bind, row)
                    live.remove(row)
                else:
                    keys[row.id][column] = _digest(["kept by migration 0003", column, str(row.id)])


def upgrade() -> None:
    bind = op.get_bind()
    op.drop_index(
        "payments_one_live_per_order",
        table_name="payments",
        schema="payments",
        postgresql_where=LIVE,
    )
    op.add_column(
        "payments", sa.Column("reference_key", sa.Text(), nullable=True), schema="payments"
    )
    rows = bind.execute(
        sa.text(
            "SELECT id, owner, task_id, merchant_origin, amount_minor, currency, order_reference,"
            " repeat_of_payment_id, state, created_at FROM payments.payments"
            " ORDER BY created_at, id FOR UPDATE"
        )
    ).all()
    by_id = {row.id: row for row in rows}
    keys = {row.id: _keys(row, by_id.get(row.repeat_of_payment_id)) for row in rows}
    _settle_collisions(bind, rows, keys)
    if rows:
        bind.execute(
            sa.text(
                "UPDATE payments.payments SET order_key = :order_key,"
                " reference_key = :reference_key WHERE id = :id"
            ),
            [{"id": row_id, **row_keys} for row_id, row_keys in keys.items()],
        )
    _index("payments_one_live_per_order", "order_key")
    _index("payments_one_live_per_reference", "reference_key")


def _old_key(row) -> str:
    """The rule before this revision: the order reference as written, else
    the contents with the description."""
    if row.order_reference:
        parts = ["reference", row.task_id, row.merchant_origin, row.order_reference]
    else:
        parts = [
            "contents",
            row.task_id,
            row.merchant_origin,
            str(row.amount_minor),
            row.currency,
            row.description,
        ]
    if row.repeat_of_payment_id:
        parts += ["repeat of", str(row.repeat_of_payment_id)]
    return _digest(parts)


def downgrade() -> None:
    """The old keys are finer than the new ones, so live payments that hold
    distinct new keys hold distinct old ones too."""
    bind = op.get_bind()
    op.drop_index(
        "payments_one_live_per_reference",
        table_name="payments",
        schema="payments",
        postgresql_where=LIVE,
    )
    op.drop_index(
        "payments_one_live_per_order",
        table_name="payments",
        schema="payments",
        postgresql_where=LIVE,
    )
    rows = bind.execute(
        sa.text(
            "SELECT id, task_id, merchant_origin, amount_minor, currency, description,"
            " order_reference, repeat_of_payment_id FROM payments.payments"
        )
    ).all()
    if rows:
        bind.execute(
            sa.text("UPDATE payments.payments SET order_key = :key WHERE id = :id"),
            [{"id": row.id, "key": _old_key(row)} for row in rows],
        )
    op.drop_column("payments", "reference_key", schema="payments")
    _index("payments_one_live_per_order", "order_key")
