"""Migration 0003 (the same order: merchant, amount and currency within a
task, or the order number) recomputes every payment's keys, and settles the
live payments that the old rule let through and the new one calls one order:
the not-started ones are cancelled, the started ones kept, and a new request
for the order meets the payment that kept it."""

import datetime
import uuid

import grpc
import pytest
import sqlalchemy as sa
from alembic import command

from nod.payments.v1 import payments_pb2 as pb
from nod_payments import MIGRATIONS, SCHEMA
from nodkit.client import call_metadata
from nodkit.migrations import alembic_config
from nodtest.database import create_test_database, drop_test_database
from nodtest.rpc import expect_error

from .support import SHOP, create_request

START = datetime.datetime(2026, 11, 30, 12, 0, tzinfo=datetime.UTC)
# name: (state, amount, description, order reference, repeat of)
BEFORE = {
    "a": ("submitted", 1000, "Lamp", None, None),
    "b": ("awaiting_confirmation", 1000, "lamp", None, None),
    "c": ("confirmed", 2000, "Mug", None, None),
    "d": ("uncertain", 2000, "Blue mug", None, None),
    "e": ("submitted", 3000, "Pot", None, None),
    "f": ("running", 3000, "Teapot", None, None),
    "g": ("awaiting_confirmation", 4000, "Chair", "A-1", None),
    "h": ("awaiting_confirmation", 5000, "Chair, red", "a 1", None),
    "i": ("awaiting_confirmation", 6000, "Desk", None, None),
    "j": ("submitted", 7000, "Rug", None, None),
    "k": ("submitted", 7000, "Rug", None, "j"),
    "l": ("refused", 1000, "LAMP", None, None),
}
CANCELLED_BY_MIGRATION = {
    "b": "awaiting_confirmation",
    "c": "confirmed",
    "h": "awaiting_confirmation",
}


def upgrade(url: str, revision: str) -> None:
    command.upgrade(alembic_config(MIGRATIONS.directory, url, SCHEMA), revision)


def write_payments_the_old_rule_allowed(url: str, owner: str, task_id: str) -> dict[str, str]:
    ids = {name: str(uuid.uuid4()) for name in BEFORE}
    engine = sa.create_engine(url)
    insert = sa.text(
        "INSERT INTO payments.payments (id, owner, task_id, merchant_origin, amount_minor,"
        " currency, description, card_item_id, card_label, order_reference,"
        " repeat_of_payment_id, order_key, state, card_operation_id, runner_instance,"
        " created_at, expires_at, confirmed_at) VALUES (:id, :owner, :task_id, :shop, :amount,"
        " 'EUR', :description, :card, '•••• 4242', :reference, :repeat_of, :old_key, :state,"
        " :operation, :runner, :created_at, :created_at + interval '1 year', :confirmed_at)"
    )
    with engine.begin() as conn:
        for n, (name, (state, amount, description, reference, repeat_of)) in enumerate(
            BEFORE.items()
        ):
            started = state in ("running", "submitted", "uncertain")
            conn.execute(
                insert,
                {
                    "id": ids[name],
                    "owner": owner,
                    "task_id": task_id,
                    "shop": SHOP,
                    "amount": amount,
                    "description": description,
                    "card": str(uuid.uuid4()),
                    "reference": reference,
                    "repeat_of": ids[repeat_of] if repeat_of else None,
                    # Whatever the old keys were: the migration recomputes them.
                    "old_key": f"old-{name}",
                    "state": state,
                    "operation": f"payment:{ids[name]}:card" if started else None,
                    "runner": "old-instance" if started else None,
                    "created_at": START + datetime.timedelta(minutes=n),
                    "confirmed_at": START if state != "awaiting_confirmation" else None,
                },
            )
    engine.dispose()
    return ids


def rows_after(url: str, ids: dict[str, str]) -> tuple[dict[str, sa.Row], list[tuple]]:
    """The payments by name, and every history row."""
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        rows = conn.execute(
            sa.text("SELECT id::text, state, reason FROM payments.payments WHERE id = ANY(:ids)"),
            {"ids": list(ids.values())},
        ).all()
        events = conn.execute(
            sa.text(
                "SELECT payment_id::text, from_state, to_state, actor FROM payments.payment_events"
            )
        ).all()
    engine.dispose()
    by_id = {row.id: row for row in rows}
    return {name: by_id[pid] for name, pid in ids.items()}, [tuple(e) for e in events]


@pytest.fixture
def old_database():
    url = create_test_database()
    upgrade(url, "0002")
    yield url
    drop_test_database(url)


async def test_the_new_keys_hold_and_the_payment_that_kept_an_order_meets_new_requests(
    old_database, payments_stub_with, service_token
):
    owner, task_id = f"person-{uuid.uuid4().hex[:12]}", f"task-{uuid.uuid4().hex[:8]}"
    ids = write_payments_the_old_rule_allowed(old_database, owner, task_id)
    upgrade(old_database, "head")

    rows, events = rows_after(old_database, ids)
    for name, (state, *_) in BEFORE.items():
        if name in CANCELLED_BY_MIGRATION:
            assert rows[name].state == "cancelled"
            assert "ask for a repeat" in rows[name].reason
        else:
            assert (rows[name].state, rows[name].reason) == (state, "")
    assert sorted(events) == sorted(
        (ids[name], was, "cancelled", "migration:0003")
        for name, was in CANCELLED_BY_MIGRATION.items()
    )

    stub = await payments_stub_with(database_url=old_database, sweep_interval_s=3600)
    meta = call_metadata(service_token, owner)

    def create(**fields):
        request = create_request(task_id=task_id, currency="EUR", **fields)
        return stub.CreatePayment(request, metadata=meta)

    for fields, reason, holder in (
        ({"amount_minor": 1000}, "DUPLICATE_ORDER", "a"),
        ({"amount_minor": 2000}, "PAYMENT_UNCERTAIN", "d"),
        ({"amount_minor": 3000}, "DUPLICATE_ORDER", "e"),
        ({"amount_minor": 9999, "order_reference": "#A1"}, "DUPLICATE_ORDER", "g"),
        ({"amount_minor": 6000}, "DUPLICATE_ORDER", "i"),
        ({"amount_minor": 7000, "repeat_of_payment_id": ids["j"]}, "DUPLICATE_ORDER", "k"),
    ):
        error = await expect_error(
            create(**fields), grpc.StatusCode.FAILED_PRECONDITION, reason=reason
        )
        assert error.metadata["payment_id"] == ids[holder], fields
    new_order = (await create(amount_minor=8000)).payment
    assert new_order.state == pb.PAYMENT_STATE_AWAITING_CONFIRMATION


def test_the_migration_goes_down_and_up_again(old_database):
    owner, task_id = f"person-{uuid.uuid4().hex[:12]}", f"task-{uuid.uuid4().hex[:8]}"
    write_payments_the_old_rule_allowed(old_database, owner, task_id)
    upgrade(old_database, "head")
    command.downgrade(alembic_config(MIGRATIONS.directory, old_database, SCHEMA), "0002")
    upgrade(old_database, "head")
