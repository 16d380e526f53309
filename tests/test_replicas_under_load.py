"""Two replicas of every service on one database, a mixed load of claims,
saved logins entered on the demo shop, app actions said yes to, card
payments and the desk lamp bought by a task running (the soak's,
soak/mixed_load.py, at a test's size), while replicas are SIGKILLed, then
restarted one after another (a rolling restart), and, on a highly available
PostgreSQL, while its primary is killed.

What must hold, from the demo shop's and demo app's own counts and the
services' records (G1, G2, G5, G12): no sign-in, payment or app action
received twice nor any claim granted twice; nothing RUNNING once the system
has settled; a record a boot ended UNCERTAIN belongs to the replica that was
killed or restarted, never to a live one; no private value in any log or
row. Every call whose answer was lost was resent unchanged, and the resend
found the first record (the duplicate counts are the proof)."""

import asyncio
import json
import random
import uuid

import pytest

from nodtest.ha_postgres import running_pair
from soak import faults
from soak.mixed_load import MixedLoad, passed
from soak.system import System

pytestmark = pytest.mark.slow

KILLS = 3
KILL_EVERY_S = 8.0


def _seed() -> int:
    seed = random.randrange(1 << 30)
    print(f"[replicas under load] seed {seed}")
    return seed


def _the_load_ran(figures: dict, kinds=("claim", "entry", "decision", "payment", "purchase")):
    """Each kind of operation got through at least once: a load that did
    nothing can't show anything."""
    for kind in kinds:
        assert figures["outcomes"].get(f"{kind}:ok", 0) > 0, (kind, figures["outcomes"])


async def _kill_some(load: MixedLoad) -> None:
    for _ in range(KILLS):
        await asyncio.sleep(KILL_EVERY_S)
        await load.system.kill_one(load.rng)


@pytest.mark.timeout(600)
async def test_two_replicas_of_everything_through_kills_and_a_rolling_restart(tmp_path):
    seed = _seed()
    system = await System(tmp_path / "logs", replicas=2).start()
    try:
        load = MixedLoad(system, seed)
        await load.run(_kill_some(load))
        killed = await load.figures("replicas, SIGKILL", seed)
        print(json.dumps(killed))
        # Only the killed replicas' boots ended anything, and at most what
        # those replicas were doing; the others were left alone.
        assert sum(system.kills.values()) == KILLS
        assert passed(killed), killed
        # A purchase by a task takes a while, and a kill may interrupt it.
        _the_load_ran(killed, kinds=("claim", "entry", "decision", "payment"))

        await load.run(system.restart_each())
        rolled = await load.figures("replicas, rolling restart", seed)
        print(json.dumps(rolled))
        assert sorted(system.restarts) == sorted(system.instance_ids())
        assert passed(rolled), rolled
        assert rolled["operations"] > killed["operations"]
        # Every replica restarts in turn while this phase's one or two
        # purchases run: a restart may cut each off, which leaves it for the
        # person to check (never redone), as it should.
        _the_load_ran(rolled, kinds=("claim", "entry", "decision", "payment"))
    finally:
        await system.close()


@pytest.fixture
async def ha_database_url():
    async with running_pair() as ha:
        yield ha, await asyncio.to_thread(ha.create_database, f"nod_ha_{uuid.uuid4().hex[:8]}")


@pytest.mark.timeout(600)
async def test_a_primary_killed_under_the_mixed_load(tmp_path, ha_database_url):
    ha, url = ha_database_url
    seed = _seed()
    system = await System(tmp_path / "logs", replicas=2, database_url=url).start()
    try:
        # Callers resend through the failover; the promoted standby answers.
        load = MixedLoad(system, seed, resend_window_s=90.0)
        failover = faults.Failover(ha)
        await load.run(failover.run(system, seconds=45))
        figures = await load.figures("failover", seed)
    finally:
        await system.close()
    recovered_s = load.recovered_s(failover.killed_at)
    print(json.dumps(figures))
    assert recovered_s is not None, "no claim got through after the failover"
    print(
        f"[failover under load] {failover.killed} killed, {failover.promoted} promoted; the first"
        f" claim begun after the kill was granted and submitted {recovered_s:.1f} s after it;"
        f" health: {' -> '.join(failover.health)}"
    )
    assert failover.promoted not in ("", failover.killed)
    assert passed(figures), figures
    _the_load_ran(figures)
    assert "NOT_SERVING" in failover.health and failover.health[-1] == "SERVING", failover.health
