"""A mixed load under faults: claims, saved logins entered on the demo shop,
app actions said yes to, card payments and the desk lamp bought by a task
run side by side for NOD_SOAK_MINUTES (10) on NOD_SOAK_REPLICAS (2) replicas
of every service, under NOD_SOAK_FAULT (soak/faults.py): a replica
SIGKILLed every NOD_SOAK_KILL_EVERY_S (30), rolling restarts, or the
database's primary killed. Then the system settles by itself (boot reconciles, lease sweeps)
and the promise is checked against the outside world's own counts and the
records:

- no operation granted twice, no sign-in or payment the shop received
  beyond the claims that allowed them, no action the app received twice;
- nothing RUNNING once the system has settled;
- a record ended UNCERTAIN by a boot belongs to a replica that was killed
  or restarted: one replica's boot never touches another live one's;
- no private value in any log or outside the vault's ciphertext.

Prints one JSON line of figures (soak/run.py makes the table of it)."""

import asyncio
import json
import os
import pathlib
import random
import sys
import time
import uuid
from collections import Counter
from collections.abc import Awaitable

import grpc
import psycopg

from nod_approvals.recovery import RESTARTED as EXECUTION_RESTARTED
from nod_browser.recovery import RESTART_REASON as RUNNER_RESTARTED
from nod_payments.recovery import RESTARTED as PAYMENT_RESTARTED
from nodkit.db import libpq_url
from nodtest.canaries import Canary
from nodtest.claims import CANARY_CARD
from nodtest.ha_postgres import running_pair
from nodtest.leaks import find_leaks
from nodtest.observed import Observation

from . import faults
from .operations import SECURITY_CODE, Operations, Outcome, Unknown
from .system import System

ROOT = pathlib.Path(__file__).resolve().parent.parent
SETTLE_S = 90.0
STILL_RUNNING = {
    "claims": "SELECT count(*) FROM claims.claims WHERE state = 'running'",
    "executions": "SELECT count(*) FROM approvals.executions WHERE state = 'running'",
    "payments": "SELECT count(*) FROM payments.payments WHERE state = 'running'",
    # A task's end is its own: queued or running, it is still going.
    "tasks": "SELECT count(*) FROM tasks.tasks WHERE state IN ('queued', 'running')",
    "steps": "SELECT count(*) FROM tasks.steps WHERE state = 'running'",
}
# The instance each record ended UNCERTAIN by a boot belongs to: the runner
# holding a claim, the approvals replica sending an action, the payments
# replica running a card entry.
ENDED_BY_A_BOOT = {
    "claims": (
        "SELECT DISTINCT holder FROM claims.claims WHERE state = 'uncertain' AND reason = %s",
        RUNNER_RESTARTED,
    ),
    "executions": (
        "SELECT DISTINCT instance_id FROM approvals.executions"
        " WHERE state = 'uncertain' AND reason = %s",
        EXECUTION_RESTARTED,
    ),
    "payments": (
        "SELECT DISTINCT runner_instance FROM payments.payments"
        " WHERE state = 'uncertain' AND reason = %s",
        PAYMENT_RESTARTED,
    ),
}
WORKERS = ("claim", "claim", "entry", "decision", "payment", "purchase")


class MixedLoad:
    def __init__(self, system: System, seed: int, resend_window_s: float = 1.0) -> None:
        self.system = system
        self.rng = random.Random(seed)
        self.outcomes: Counter[tuple[str, str]] = Counter()
        self.operations = Operations(system, resend_window_s, random.Random(seed))
        # When each claim that ended OK began and ended: the time to recover
        # is to the end of the first one begun after a fault.
        self.claims_ok: list[tuple[float, float]] = []

    async def worker(self, kind: str, stop: asyncio.Event) -> None:
        person = await self._person_when_up()
        run = getattr(self.operations, kind)
        while not stop.is_set():
            if kind == "payment":
                # A person of its own per payment: the daily limit is per person.
                person = await self._person_when_up()
            begun = time.monotonic()
            try:
                outcome = await run(person)
            except Unknown:
                outcome = Outcome.UNKNOWN
            except grpc.aio.AioRpcError:
                outcome = Outcome.FAILED
            self.outcomes[(kind, outcome.value)] += 1
            if kind == "claim" and outcome is Outcome.OK:
                self.claims_ok.append((begun, time.monotonic()))
            if outcome is Outcome.FAILED:
                await asyncio.sleep(0.5)  # a refusal that lasts is not retried in a spin

    async def _person_when_up(self):
        while True:
            try:
                return await self.operations.person()
            except grpc.aio.AioRpcError:
                await asyncio.sleep(1.0)

    async def run(self, disturb: Awaitable[object], tail_s: float = 5.0) -> None:
        """The workers side by side while `disturb` runs, and tail_s after."""
        stop = asyncio.Event()
        workers = [asyncio.ensure_future(self.worker(kind, stop)) for kind in WORKERS]
        try:
            await disturb
            await asyncio.sleep(tail_s)
        finally:
            stop.set()
            await asyncio.gather(*workers)

    def recovered_s(self, fault_at: float) -> float | None:
        """Seconds from a fault to the first claim begun after it that was
        granted and submitted (to that claim's end)."""
        ends = [ended for begun, ended in self.claims_ok if begun >= fault_at]
        return min(ends) - fault_at if ends else None

    async def _connect(self) -> psycopg.AsyncConnection:
        return await psycopg.AsyncConnection.connect(
            libpq_url(self.system.database_url), autocommit=True
        )

    async def settled_running(self) -> dict[str, int]:
        """What is still RUNNING once boot reconciles and sweeps have had
        their time (or what they left after SETTLE_S)."""
        deadline = time.monotonic() + SETTLE_S
        async with await self._connect() as conn:
            while True:
                left = {}
                for name, query in STILL_RUNNING.items():
                    left[name] = (await (await conn.execute(query)).fetchone())[0]
                if not any(left.values()) or time.monotonic() > deadline:
                    return left
                await asyncio.sleep(1.0)

    async def ended_by_boots_of_others(self) -> dict[str, list[str]]:
        """Records a boot ended UNCERTAIN whose instance was never killed or
        restarted: a boot that reached into another live replica's records."""
        touched = self.system.touched()
        found: dict[str, list[str]] = {}
        async with await self._connect() as conn:
            for name, (query, reason) in ENDED_BY_A_BOOT.items():
                owners = [row[0] for row in await (await conn.execute(query, (reason,))).fetchall()]
                if strays := sorted(owner for owner in owners if owner not in touched):
                    found[name] = strays
        return found

    async def duplicates(self) -> dict[str, int]:
        async with await self._connect() as conn:

            async def count(query: str) -> int:
                return (await (await conn.execute(query)).fetchone())[0]

            # The claim workers' saved logins are never entered on the shop.
            entry_claims = await count(
                "SELECT count(*) FROM claims.claims"
                " WHERE kind = 'saved_login' AND task_id <> 'soak-claims'"
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

    async def figures(self, part: str, seed: int) -> dict:
        """Settles, then checks: the figures, their verdict in `passed`."""
        running = await self.settled_running()
        duplicates = await self.duplicates()
        strays = await self.ended_by_boots_of_others()
        texts = {**self.system.log_texts(), "database dump": await self.dump()}
        canaries = [
            Canary(self.system.password, "password"),
            Canary(CANARY_CARD, "card number"),
            Canary(SECURITY_CODE, "security code"),
        ]
        leaks = find_leaks(canaries, [Observation(where, text) for where, text in texts.items()])
        hits = [f"{leak.where}: {leak.canary.kind} ({leak.encoding})" for leak in leaks]
        system = self.system
        return {
            "part": part,
            "seed": seed,
            "replicas": system.replicas,
            "operations": sum(self.outcomes.values()),
            "outcomes": {f"{k}:{o}": n for (k, o), n in sorted(self.outcomes.items())},
            "answers lost, resent": self.operations.answers_lost,
            "faults": {
                **{f"kill {name}": n for name, n in sorted(system.kills.items())},
                **{f"restart {name}": n for name, n in sorted(system.restarts.items())},
            },
            "shop received": system.shop.state.snapshot()["counts"],
            "app received": len(system.app.received),
            "duplicates": sum(duplicates.values()),
            "duplicates by kind": duplicates,
            "running left": sum(running.values()),
            "running by record": running,
            "ended by another's boot": strays,
            "canary hits": len(hits),
            "canary where": hits[:10],
        }


def passed(figures: dict) -> bool:
    return not (
        figures["duplicates"]
        or figures["running left"]
        or figures["ended by another's boot"]
        or figures["canary hits"]
    )


def replicas() -> int:
    return int(os.environ.get("NOD_SOAK_REPLICAS", "2"))


async def under_replica_faults(fault: str, minutes: float, every_s: float, seed: int) -> dict:
    system = System(ROOT / "var" / "soak" / f"{fault}-{seed}", replicas=replicas())
    await system.start()
    try:
        load = MixedLoad(system, seed)
        if fault == "kill":
            await load.run(faults.kills(system, load.rng, minutes * 60, every_s))
        else:
            await load.run(faults.rolling_restarts(system, minutes * 60, every_s))
        return await load.figures(f"mixed load, {fault}", seed)
    finally:
        await system.close()


async def under_failover(minutes: float, seed: int) -> dict:
    async with running_pair() as ha:
        url = await asyncio.to_thread(ha.create_database, f"nod_soak_{uuid.uuid4().hex[:8]}")
        system = System(
            ROOT / "var" / "soak" / f"failover-{seed}",
            replicas=replicas(),
            database_url=url,
        )
        await system.start()
        try:
            # Resends go on through the failover: the promoted standby answers them.
            load = MixedLoad(system, seed, resend_window_s=90.0)
            failover = faults.Failover(ha)
            await load.run(failover.run(system, minutes * 60))
            figures = await load.figures("mixed load, failover", seed)
        finally:
            await system.close()
    recovered = load.recovered_s(failover.killed_at)
    figures["faults"] = {"primary killed": 1}
    figures["failover"] = {
        "killed": failover.killed,
        "promoted": failover.promoted,
        "first claim after the kill, s": None if recovered is None else round(recovered, 1),
        "health": failover.health,
    }
    return figures


async def main() -> int:
    fault = os.environ.get("NOD_SOAK_FAULT", "kill")
    if fault not in faults.FAULTS:
        raise SystemExit(f"NOD_SOAK_FAULT: {fault} is not one of {faults.FAULTS}")
    minutes = float(os.environ.get("NOD_SOAK_MINUTES", "10"))
    every_s = float(os.environ.get("NOD_SOAK_KILL_EVERY_S", "30"))
    seed = int(os.environ.get("NOD_SOAK_SEED", str(random.randrange(1 << 30))))
    print(f"mixed load: {minutes} min under {fault}, seed {seed}", file=sys.stderr)
    if fault == "failover":
        figures = await under_failover(minutes, seed)
    else:
        figures = await under_replica_faults(fault, minutes, every_s, seed)
    print(json.dumps(figures))
    return 0 if passed(figures) else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
