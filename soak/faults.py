"""What the mixed load runs under (NOD_SOAK_FAULT), each what operators and
crashes do to a deployment every day:

- kill: one replica of one service SIGKILLed and started again at once, every
  `every_s`, as a crash and the kubelet's restart would;
- roll: rolling restarts, round after round: every replica of every service
  in turn sent SIGTERM, started again and waited for until SERVING before
  the next goes, as `kubectl rollout restart` does;
- failover: the database's primary killed once (Patroni's pair,
  nodtest.ha_postgres) a third of the way through; the services find the
  promoted standby by themselves through their multi-host URL.

The System counts the kills and restarts; a Failover keeps which member
was killed and promoted, and what health answered meanwhile."""

import asyncio
import random
import time
from dataclasses import dataclass, field

from nodtest.ha_postgres import HaPostgres
from nodtest.health import watch_health

from .system import System

FAULTS = ("kill", "roll", "failover")


async def kills(system: System, rng: random.Random, seconds: float, every_s: float) -> None:
    stop_at = time.monotonic() + seconds
    while time.monotonic() + every_s < stop_at:
        await asyncio.sleep(every_s)
        await system.kill_one(rng)


async def rolling_restarts(system: System, seconds: float, every_s: float) -> None:
    """A round of restarts every `every_s`, for about `seconds`."""
    stop_at = time.monotonic() + seconds
    while time.monotonic() + every_s < stop_at:
        await asyncio.sleep(every_s)
        await system.restart_each()


@dataclass
class Failover:
    ha: HaPostgres
    killed_at: float = 0.0
    killed: str = ""
    promoted: str = ""
    # Every status a claims replica's health answered, repeats left out.
    health: list[str] = field(default_factory=list)

    async def run(self, system: System, seconds: float) -> None:
        """The primary killed a third of the way through `seconds`."""
        stop_at = time.monotonic() + seconds
        watch = asyncio.Event()
        watching = asyncio.ensure_future(
            watch_health(system.addresses("claims")[0], self.health, watch, every_s=0.2)
        )
        try:
            await asyncio.sleep(max(0.0, (stop_at - time.monotonic()) / 3))
            self.killed_at = time.monotonic()
            self.killed = await asyncio.to_thread(self.ha.kill_leader)
            cluster = await self.ha.wait_for(
                lambda c: HaPostgres.leader_of(c) not in ("", self.killed), 60, "a standby promoted"
            )
            self.promoted = HaPostgres.leader_of(cluster)
            await asyncio.sleep(max(0.0, stop_at - time.monotonic()))
        finally:
            watch.set()
            await watching
