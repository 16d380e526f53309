"""Claims on a highly available PostgreSQL (Patroni, two servers with
synchronous replication, nodtest.ha_postgres), its primary killed in the
middle of a claim storm. The service reaches the pair by a multi-host URL
with target_session_attrs=read-write and finds the promoted standby by
itself.

What must hold (G2, G5): no claim a caller was granted is lost (its row is
on the new primary) or granted again (at most one reply with the private
value per operation id, one row per operation id); a call cut off by the
failover is resent and answered from the record, never told "not granted,
try again"; health goes NOT_SERVING and back to SERVING by itself; nothing
is left RUNNING. The time from the kill to the first claim granted again
is printed."""

import asyncio
import time
import uuid

import psycopg
import pytest

from nod.claims.v1 import claims_pb2 as pb
from nod_claims import MIGRATIONS
from nodtest.browser import poll
from nodtest.claims import put_login
from nodtest.ha_postgres import HaPostgres, running_pair
from nodtest.health import watch_health
from nodtest.storms import StormTally, until_answered

from .support import ClaimCaller, claim_request, live_holder

pytestmark = pytest.mark.slow

CALLERS = 6
BEFORE_KILL = 60
AFTER_RECOVERY = 60
# Resends go on through the failover: a leader's key lapses after
# ha_postgres.TTL_S, then the standby is promoted.
RESENDS = 600


@pytest.fixture
async def ha_database():
    async with running_pair() as ha:
        database = f"nod_failover_{uuid.uuid4().hex[:8]}"
        await asyncio.to_thread(MIGRATIONS.upgrade, ha.create_database(database))
        yield ha, database


@pytest.mark.timeout(300)
async def test_a_primary_killed_mid_storm_loses_and_doubles_no_grant(
    ha_database, claims_with, as_person, person
):
    ha, database = ha_database
    url = ha.url(database)
    address, direct, vault = await claims_with(
        database_url=url, db_call_timeout_s=5.0, instance_id="claims-failover"
    )
    tally = StormTally("claims.Claim over a failover")
    item = await until_answered(lambda: put_login(vault, as_person), tally)
    holder = await live_holder(direct, as_person)
    claims_caller = ClaimCaller(direct, direct, holder, as_person, tally, tries=RESENDS)
    granted_after_kill: list[float] = []
    killed_at: list[float] = []
    done = asyncio.Event()
    health: list[str] = []
    watching = asyncio.ensure_future(watch_health(address, health, done))

    async def renew_forever():
        while not done.is_set():
            await until_answered(
                lambda: direct.RenewHolder(
                    pb.RenewHolderRequest(holder=holder), metadata=as_person
                ),
                tally,
                tries=RESENDS,
            )
            await asyncio.sleep(2)

    async def one_operation() -> None:
        begun_after_kill = bool(killed_at)
        if (reply := await claims_caller.claim(claim_request(item, holder))) is None:
            return
        if reply.secret_fields and begun_after_kill:
            granted_after_kill.append(time.monotonic())
        await claims_caller.end(reply)

    async def caller() -> None:
        while not done.is_set():
            tally.operations += 1
            await one_operation()

    async def failover() -> None:
        await poll(lambda: tally.operations >= BEFORE_KILL, timeout_s=120, what="claims")
        killed_at.append(time.monotonic())
        killed = await asyncio.to_thread(ha.kill_leader)
        await ha.wait_for(
            lambda c: HaPostgres.leader_of(c) not in ("", killed), 60, "a standby promoted"
        )
        await poll(
            lambda: len(granted_after_kill) >= AFTER_RECOVERY,
            timeout_s=120,
            what=f"{AFTER_RECOVERY} claims granted after the failover",
        )
        done.set()

    renewing = asyncio.ensure_future(renew_forever())
    try:
        await asyncio.gather(failover(), *(caller() for _ in range(CALLERS)))
        # Health is back to SERVING by itself.
        await poll(lambda: health[-1:] == ["SERVING"], timeout_s=30, what="SERVING")
    finally:
        done.set()
        await asyncio.gather(renewing, watching, return_exceptions=True)

    async with await psycopg.AsyncConnection.connect(ha.conninfo(database)) as conn:
        rows = await (
            await conn.execute(
                "SELECT count(*), count(DISTINCT operation_id),"
                " count(*) FILTER (WHERE state = 'uncertain'),"
                " count(*) FILTER (WHERE state = 'running'),"
                " count(*) FILTER (WHERE operation_id = ANY(%s))"
                " FROM claims.claims WHERE owner = %s",
                (list(claims_caller.secrets_by_operation), person),
            )
        ).fetchone()
    assert rows is not None
    claimed, distinct, tally.uncertain, tally.running_left, granted_kept = rows
    tally.duplicates = claims_caller.duplicates
    recovered_s = granted_after_kill[0] - killed_at[0]
    tally.report()
    print(
        f"[failover] primary killed after {BEFORE_KILL} operations; the first claim begun"
        f" after the kill granted {recovered_s:.1f} s after it; health: {' -> '.join(health)}"
    )
    assert tally.wrong_answers == []
    assert tally.duplicates == 0
    assert granted_kept == len(claims_caller.secrets_by_operation)  # no grant lost
    assert claimed == distinct == tally.operations
    assert tally.running_left == 0
    assert len(claims_caller.secrets_by_operation) + tally.uncertain == tally.operations
    assert "NOT_SERVING" in health and health[-1] == "SERVING", health
