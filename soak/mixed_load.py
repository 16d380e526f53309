"""A mixed load with a crash every so often: claims, saved logins entered on
the demo shop, app actions said yes to and card payments run side by side
for NOD_SOAK_MINUTES (10), while one service is SIGKILLed and started again
every NOD_SOAK_KILL_EVERY_S (30). Then the system settles by itself (boot
reconciles, lease sweeps) and the promise is checked against the outside
world's own counts and the records:

- no operation granted twice, no sign-in or payment the shop received
  beyond the claims that allowed them, no action the app received twice;
- nothing RUNNING once the system has settled;
- no private value in any log or outside the vault's ciphertext.

Prints one JSON line of figures (soak/run.py makes the table of it)."""

import asyncio
import json
import os
import pathlib
import random
import sys
import time
from collections import Counter

import grpc
import psycopg

from nodtest.canaries import Canary
from nodtest.claims import CANARY_CARD
from nodtest.database import libpq_url
from nodtest.leaks import find_leaks
from nodtest.observed import Observation

from .operations import SECURITY_CODE, Operations, Outcome, Unknown
from .system import System

ROOT = pathlib.Path(__file__).resolve().parent.parent
SETTLE_S = 90.0
STILL_RUNNING = {
    "claims": "SELECT count(*) FROM claims.claims WHERE state = 'running'",
    "executions": "SELECT count(*) FROM approvals.executions WHERE state = 'running'",
    "payments": "SELECT count(*) FROM payments.payments WHERE state = 'running'",
}


class MixedLoad:
    def __init__(self, system: System, seed: int) -> None:
        self.system = system
        self.rng = random.Random(seed)
        self.outcomes: Counter[tuple[str, str]] = Counter()
        self.operations = Operations(system)

    async def worker(self, kind: str, stop_at: float) -> None:
        person = await self.operations.person()
        run = getattr(self.operations, kind)
        while time.monotonic() < stop_at:
            if kind == "payment":
                # A person of its own per payment: the daily limit is per person.
                person = await self._person_when_up()
            try:
                outcome = await run(person)
            except Unknown:
                outcome = Outcome.UNKNOWN
            except grpc.aio.AioRpcError:
                outcome = Outcome.FAILED
            self.outcomes[(kind, outcome.value)] += 1
            if outcome is Outcome.FAILED:
                await asyncio.sleep(0.5)  # a refusal that lasts is not retried in a spin

    async def _person_when_up(self):
        while True:
            try:
                return await self.operations.person()
            except grpc.aio.AioRpcError:
                await asyncio.sleep(1.0)

    async def killer(self, stop_at: float, every_s: float) -> None:
        while time.monotonic() + every_s < stop_at:
            await asyncio.sleep(every_s)
            await self.system.kill_one(self.rng)

    async def run(self, seconds: float, every_s: float) -> None:
        stop_at = time.monotonic() + seconds
        workers = ["claim", "claim", "entry", "decision", "payment"]
        await asyncio.gather(
            self.killer(stop_at, every_s), *(self.worker(kind, stop_at) for kind in workers)
        )

    async def settled_running(self) -> dict[str, int]:
        """What is still RUNNING once boot reconciles and sweeps have had
        their time (or what they left after SETTLE_S)."""
        deadline = time.monotonic() + SETTLE_S
        async with await psycopg.AsyncConnection.connect(
            libpq_url(self.system.database_url), autocommit=True
        ) as conn:
            while True:
                left = {}
                for name, query in STILL_RUNNING.items():
                    left[name] = (await (await conn.execute(query)).fetchone())[0]
                if not any(left.values()) or time.monotonic() > deadline:
                    return left
                await asyncio.sleep(1.0)

    async def duplicates(self) -> dict[str, int]:
        async with await psycopg.AsyncConnection.connect(
            libpq_url(self.system.database_url), autocommit=True
        ) as conn:

            async def count(query: str) -> int:
                return (await (await conn.execute(query)).fetchone())[0]

            entry_claims = await count(
                "SELECT count(*) FROM claims.claims WHERE task_id = 'soak-entries'"
            )
            card_claims = await count("SELECT count(*) FROM claims.claims WHERE kind = 'card'")
        shop = self.system.shop.state.snapshot()["counts"]
        sends = Counter(entry["idempotency_key"] for entry in self.system.app.received)
        return {
            "claims granted twice": sum(1 for n in self.operations.grants.values() if n > 1),
            "sign-ins beyond their claims": max(0, shop["login"] - entry_claims),
            "payments beyond their claims": max(0, shop["checkout"] - card_claims),
            "app actions received twice": sum(n - 1 for n in sends.values() if n > 1),
        }

    async def dump(self) -> str:
        """Every row of every schema, as text (the vault's ciphertext is
        sealed bytes: a canary can't appear in it)."""
        done = await asyncio.create_subprocess_exec(
            "pg_dump",
            "--data-only",
            libpq_url(self.system.database_url),
            stdout=asyncio.subprocess.PIPE,
        )
        out, _ = await done.communicate()
        return out.decode(errors="replace")


async def main() -> int:
    minutes = float(os.environ.get("NOD_SOAK_MINUTES", "10"))
    every_s = float(os.environ.get("NOD_SOAK_KILL_EVERY_S", "30"))
    seed = int(os.environ.get("NOD_SOAK_SEED", str(random.randrange(1 << 30))))
    print(f"mixed load: {minutes} min, a kill every {every_s} s, seed {seed}", file=sys.stderr)
    system = await System(ROOT / "var" / "soak" / f"load-{seed}").start()
    try:
        load = MixedLoad(system, seed)
        await load.run(minutes * 60, every_s)
        running = await load.settled_running()
        duplicates = await load.duplicates()
        texts = {**system.log_texts(), "database dump": await load.dump()}
        canaries = [
            Canary(system.password, "password"),
            Canary(CANARY_CARD, "card number"),
            Canary(SECURITY_CODE, "security code"),
        ]
        leaks = find_leaks(canaries, [Observation(where, text) for where, text in texts.items()])
        hits = [f"{leak.where}: {leak.canary.kind} ({leak.encoding})" for leak in leaks]
        figures = {
            "part": "mixed load",
            "seed": seed,
            "operations": sum(load.outcomes.values()),
            "outcomes": {f"{k}:{o}": n for (k, o), n in sorted(load.outcomes.items())},
            "faults": {f"kill {name}": n for name, n in system.kills.items()},
            "shop received": system.shop.state.snapshot()["counts"],
            "app received": len(system.app.received),
            "duplicates": sum(duplicates.values()),
            "duplicates by kind": duplicates,
            "running left": sum(running.values()),
            "running by record": running,
            "canary hits": len(hits),
            "canary where": hits[:10],
        }
        print(json.dumps(figures))
        return 0 if not (figures["duplicates"] or figures["running left"] or hits) else 1
    finally:
        await system.close()


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
