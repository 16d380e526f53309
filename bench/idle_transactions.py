"""What an idle service costs its database: transactions per minute.

Every service runs as its own process (`python -m nod_<service> serve`)
against a fresh database of its own, migrated, with nothing to do: no
caller, no task, no claim. Between two readings of pg_stat_database taken
`--seconds` apart, the database's xact_commit + xact_rollback grew by what
the service's background loops, health probe and listeners cost; the
table prints that per minute.

The browser runner has no database: what it costs is its claims service's
(the renewals of its holder). It runs with a claims service of its own in
a database of its own, and its row is that database's count less the
claims row measured alone.

    python bench/idle_transactions.py [--seconds 60] [--only tasks,claims]
"""

import argparse
import asyncio
import base64
import dataclasses
import os
import pathlib
import secrets
import subprocess
import sys
import time

import psycopg

from nodkit.client import wait_until_answering, wait_until_serving
from nodtest.children import tied_to_me
from nodtest.database import admin_url, create_test_database, drop_test_database, libpq_url
from nodtest.processes import free_port, run_migrate

ROOT = pathlib.Path(__file__).resolve().parent.parent
LOGS = ROOT / "var" / "bench" / "idle"
# After SERVING, boot's own transactions (migrations check, reconcile,
# first sweep) are over and the loops are in their stride.
WARM_UP_S = 8.0
SERVICES = ("claims", "approvals", "payments", "browser", "tasks", "gateway")


@dataclasses.dataclass
class Process:
    name: str
    module: str
    address: str
    env: dict[str, str]
    popen: subprocess.Popen | None = None

    def start(self) -> None:
        LOGS.mkdir(parents=True, exist_ok=True)
        with (LOGS / f"{self.name}.log").open("wb") as log:
            self.popen = subprocess.Popen(
                tied_to_me([sys.executable, "-m", self.module, "serve"]),
                env={**os.environ, **self.env},
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    async def until_serving(self) -> None:
        if self.module == "nod_gateway":
            url = f"http://{self.address}/healthz"
            await asyncio.to_thread(wait_until_answering, url, 90)
        else:
            await wait_until_serving(self.address, timeout_s=90)

    def stop(self) -> None:
        if self.popen is not None and self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(timeout=10)


@dataclasses.dataclass
class Measured:
    """One database and the processes that use it."""

    row: str
    database_url: str
    processes: list[Process]


def common_env(database_url: str) -> dict[str, str]:
    return {
        "NOD_DATABASE_URL": database_url,
        "NOD_SERVICE_TOKEN": secrets.token_urlsafe(24),
        "NOD_VAULT_KEY": base64.b64encode(os.urandom(32)).decode(),
        "NOD_LOG_FORMAT": "json",
        "NOD_INSTANCE_ID": "idle-bench",
        # The peers nobody calls while idle: a port nothing listens on.
        **{f"NOD_{peer}_ADDR": f"127.0.0.1:{free_port()}" for peer in SERVICE_PEERS},
    }


SERVICE_PEERS = ("CLAIMS", "APPROVALS", "PAYMENTS", "BROWSER", "TASKS")


def process(name: str, env: dict[str, str], row: str | None = None) -> Process:
    address = f"127.0.0.1:{free_port()}"
    own = {**env, f"NOD_{name.upper()}_LISTEN": address}
    return Process(row or name, f"nod_{name}", address, own)


def plan(names: list[str]) -> list[Measured]:
    plans = []
    for name in names:
        url = create_test_database()
        env = common_env(url)
        if name == "browser":
            claims = process("claims", env, row="browser's claims")
            browser = process("browser", {**env, "NOD_CLAIMS_ADDR": claims.address})
            plans.append(Measured("browser", url, [claims, browser]))
        else:
            plans.append(Measured(name, url, [process(name, env)]))
    return plans


def transactions(database_urls: list[str]) -> dict[str, int]:
    """Each database's transactions so far, committed or rolled back."""
    names = [libpq_url(url).rsplit("/", 1)[1] for url in database_urls]
    with psycopg.connect(libpq_url(admin_url()), autocommit=True) as conn:
        conn.execute("SELECT pg_stat_clear_snapshot()")
        rows = conn.execute(
            "SELECT datname, xact_commit + xact_rollback FROM pg_stat_database"
            " WHERE datname = ANY(%s)",
            (names,),
        ).fetchall()
    by_name = dict(rows)
    return {url: int(by_name.get(name, 0)) for url, name in zip(database_urls, names, strict=True)}


def migrate(plans: list[Measured]) -> None:
    for measured in plans:
        for proc in measured.processes:
            if proc.module != "nod_browser":
                run_migrate(proc.module, proc.env)


async def measure(plans: list[Measured], seconds: float) -> dict[str, float]:
    for measured in plans:
        for proc in measured.processes:
            proc.start()
    await asyncio.gather(*(p.until_serving() for m in plans for p in m.processes))
    await asyncio.sleep(WARM_UP_S)
    urls = [m.database_url for m in plans]
    # A backend's counts reach pg_stat_database some seconds late (at most
    # once a second, within 10 s of going idle): both readings lag alike,
    # so over a long enough span the difference is the rate.
    first, started = transactions(urls), time.monotonic()
    await asyncio.sleep(seconds)
    second, took = transactions(urls), time.monotonic() - started
    return {m.row: (second[m.database_url] - first[m.database_url]) * 60 / took for m in plans}


def table(rates: dict[str, float], seconds: float) -> str:
    if "browser" in rates and "claims" in rates:
        # The browser's database held a claims service too: its own idle cost is not the browser's.
        rates = {**rates, "browser": max(rates["browser"] - rates["claims"], 0.0)}
    lines = [
        f"idle transactions per minute ({seconds:.0f} s each, every service at once)",
        f"{'service':<10} {'tx/min':>8}",
    ]
    lines += [f"{name:<10} {rates[name]:>8.1f}" for name in SERVICES if name in rates]
    lines.append(f"{'total':<10} {sum(rates.values()):>8.1f}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--only", default=",".join(SERVICES))
    args = parser.parse_args()
    names = [name for name in args.only.split(",") if name]
    unknown = set(names) - set(SERVICES)
    if unknown:
        parser.error(f"unknown services: {', '.join(sorted(unknown))}")
    if "browser" in names and "claims" not in names:
        names.append("claims")  # the browser's row is counted less the claims row
    plans = plan(names)
    try:
        migrate(plans)
        rates = asyncio.run(measure(plans, args.seconds))
    finally:
        for measured in plans:
            for proc in measured.processes:
                proc.stop()
        for measured in plans:
            drop_test_database(measured.database_url)
    print(table(rates, args.seconds))


if __name__ == "__main__":
    main()
