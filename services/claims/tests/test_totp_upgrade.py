"""Migration 0005 moves the TOTP ledger to accounts. It can't compute
account keys (they need the vault key), so the steps given so far stay in
the per-login table, which the service keeps honouring for a release: those
of the running window stay, the ended ones go. Going back down keeps them."""

import asyncio
import time
import uuid

import sqlalchemy as sa
from alembic import command

from nod_claims import MIGRATIONS, SCHEMA
from nodkit.migrations import alembic_config
from nodtest.database import create_test_database, drop_test_database

PERIOD_S = 30


def migrate(url: str, revision: str, *, down: bool = False) -> None:
    config = alembic_config(MIGRATIONS.directory, url, SCHEMA)
    (command.downgrade if down else command.upgrade)(config, revision)


def steps_left(url: str, owner: str) -> list[int]:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                sa.text("SELECT step FROM claims.totp_steps WHERE owner = :owner ORDER BY step"),
                {"owner": owner},
            )
            return [step for (step,) in rows]
    finally:
        engine.dispose()


def has_account_ledger(url: str) -> bool:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return sa.inspect(conn).has_table("totp_account_steps", schema=SCHEMA)
    finally:
        engine.dispose()


async def test_the_upgrade_keeps_this_windows_steps_and_drops_the_ended_ones():
    url = create_test_database()
    try:
        migrate(url, "0004")
        if PERIOD_S - time.time() % PERIOD_S < 4:
            await asyncio.sleep(PERIOD_S - time.time() % PERIOD_S + 0.05)
        now_step = int(time.time() // PERIOD_S)
        owner, item_id = "person-upgrade", str(uuid.uuid4())
        engine = sa.create_engine(url)
        with engine.begin() as conn:
            for step in (now_step - 40, now_step - 1, now_step, now_step + 1):
                conn.execute(
                    sa.text(
                        "INSERT INTO claims.totp_steps (owner, item_id, step, claim_id)"
                        " VALUES (:owner, :item_id, :step, :claim_id)"
                    ),
                    {
                        "owner": owner,
                        "item_id": item_id,
                        "step": step,
                        "claim_id": str(uuid.uuid4()),
                    },
                )
        engine.dispose()

        migrate(url, "head")
        assert has_account_ledger(url)
        assert steps_left(url, owner) == [now_step, now_step + 1]

        migrate(url, "0004", down=True)
        assert not has_account_ledger(url)
        assert steps_left(url, owner) == [now_step, now_step + 1]
    finally:
        drop_test_database(url)
