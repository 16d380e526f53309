"""What running claims as more than one process, and on a highly available
database, costs and gives, all measured in this one run:

- Claim's rate and latency at 8 and 64 concurrent callers against one claims
  replica, and against two replicas on the same database reached through
  one channel (nodkit's open_channel spreads calls over comma-separated
  replicas with gRPC's round_robin), beside the same run's echo and
  echo + INSERT on the same server stack (the floor claims_bench compares
  Claim against); server CPU per call, summed over the replicas.
- The same Claim load against one replica whose database is a Patroni pair
  with synchronous replication (nodtest.ha_postgres): every commit waits for
  the standby, and the difference in Claim p50 from the plain local database
  is what that costs each claim.
- Each replica's resident memory idle and right after the heaviest load:
  what a second replica costs in memory.

The figures are measured interleaved, caller count by caller count, so that
whatever else the machine is doing weighs on every figure alike. Each server
is its own process (as deployed), logging to files under var/bench; the load
comes from this process over loopback.
"""

import asyncio
import base64
import os
import pathlib
import subprocess
import sys
import uuid
from dataclasses import dataclass, field

import grpc
import psycopg

from nod_claims import MIGRATIONS
from nodtest.database import create_test_database, drop_test_database, libpq_url
from nodtest.ha_postgres import HaPostgres
from nodtest.processes import free_port, wait_until_serving

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from claims_bench import (  # noqa: E402
    LOGS,
    SECONDS,
    TOKEN,
    claim_load,
    cpu_seconds,
    echo_load,
    measure,
    row,
    start,
)
from load import Figures, run_load  # noqa: E402

from nodtest.proc import rss_mib  # noqa: E402

CALLERS = tuple(int(n) for n in os.environ.get("BENCH_CALLERS", "8,64").split(","))
# Printed for each database, so that the two differ visibly only in replication.
DATABASE_SETTINGS = ("fsync", "synchronous_commit", "shared_buffers", "synchronous_standby_names")


@dataclass
class Replica:
    name: str
    process: subprocess.Popen
    address: str
    # (when, MiB): idle, then after each heaviest load it served.
    memory: list[tuple[str, float]] = field(default_factory=list)


def start_replica(name: str, database_url: str, vault_key: str) -> Replica:
    """One `nod_claims serve` process. Replicas of one service share its
    database, token and vault key; each has its own address and instance
    id (which its sweeper signs its work with)."""
    address = f"127.0.0.1:{free_port()}"
    env = {
        "NOD_DATABASE_URL": database_url,
        "NOD_SERVICE_TOKEN": TOKEN.get_secret_value(),
        "NOD_VAULT_KEY": vault_key,
        "NOD_CLAIMS_LISTEN": address,
        "NOD_INSTANCE_ID": f"bench-{name}",
        "NOD_DB_POOL_SIZE": os.environ.get("BENCH_POOL", "10"),
    }
    process = start([sys.executable, "-m", "nod_claims", "serve"], env, f"replicas-{name}.log")
    return Replica(name, process, address)


def start_echo(database_url: str) -> tuple[subprocess.Popen, str]:
    address = f"127.0.0.1:{free_port()}"
    args = [
        sys.executable,
        str(ROOT / "bench/echo_server.py"),
        address,
        TOKEN.get_secret_value(),
        libpq_url(database_url),
    ]
    return start(args, {}, "replicas-echo.log"), address


async def start_ha_database(ha: HaPostgres) -> str:
    """A migrated database on the Patroni pair; its URL names both members."""
    await ha.start()
    url = await asyncio.to_thread(ha.create_database, f"nod_bench_{uuid.uuid4().hex[:8]}")
    await asyncio.to_thread(MIGRATIONS.upgrade, url)
    return url


def database_settings(conninfo: str) -> str:
    with psycopg.connect(conninfo, connect_timeout=5) as conn:
        shown = []
        for name in DATABASE_SETTINGS:
            found = conn.execute(f"SHOW {name}").fetchone()
            shown.append(f"{name} {found[0] if found else '?'!r}")
    return ", ".join(shown)


async def measure_replicas(call, callers: int, replicas: list[Replica]):
    """As claims_bench.measure, with the server CPU time summed over every
    replica the calls are spread over."""
    pids = [replica.process.pid for replica in replicas]
    await run_load(call, callers, min(1.0, SECONDS))  # warm up: pools, prepared statements
    before = sum(cpu_seconds(pid) for pid in pids)
    figures = await run_load(call, callers, SECONDS)
    if not figures.calls_per_s:
        return figures, None
    calls = figures.calls_per_s * SECONDS
    return figures, (sum(cpu_seconds(pid) for pid in pids) - before) / calls * 1e6


def note_memory(replicas: list[Replica], when: str) -> None:
    for replica in replicas:
        replica.memory.append((when, rss_mib(replica.process.pid)))


def print_ratios(measured: dict[int, dict[str, Figures]]) -> None:
    print("two replicas / one replica, calls/s:")
    for callers, figures in measured.items():
        ratio = figures["two"].calls_per_s / figures["one"].calls_per_s
        print(f"  {callers} callers: {ratio:.2f}")
    print(
        f"  (this machine has {os.cpu_count()} cores: the two replicas share the same cores as"
        " one, with PostgreSQL and the load, so this is what a second process gives on the"
        " same hardware, not what a second machine would)"
    )


def print_replication_cost(
    measured: dict[int, dict[str, Figures]], local_settings: str, ha_settings: str
) -> None:
    print("synchronous replication: one replica on the HA pair vs one on the local database:")
    for callers, figures in measured.items():
        cost = figures["ha"].p50_ms - figures["one"].p50_ms
        ratio = figures["ha"].calls_per_s / figures["one"].calls_per_s
        print(
            f"  {callers} callers: cost of synchronous replication per claim (Claim p50, HA -"
            f" local) {cost:+.2f} ms; calls/s HA / local {ratio:.2f}"
        )
    print(f"  local database: {local_settings}")
    print(f"  HA primary:     {ha_settings}")


def print_memory(replicas: list[Replica]) -> None:
    print("resident memory (VmRSS) of each claims replica:")
    for replica in replicas:
        figures = ", ".join(f"{when} {mib:.1f} MiB" for when, mib in replica.memory)
        print(f"  {replica.name:<10} {figures}")


async def main() -> None:
    LOGS.mkdir(parents=True, exist_ok=True)
    database_url = create_test_database()
    ha = HaPostgres()
    processes: list[subprocess.Popen] = []
    channels = []
    try:
        MIGRATIONS.upgrade(database_url)
        ha_url = await start_ha_database(ha)
        vault_key = base64.b64encode(os.urandom(32)).decode()
        first = start_replica("local-a", database_url, vault_key)
        second = start_replica("local-b", database_url, vault_key)
        on_ha = start_replica("ha", ha_url, vault_key)
        echo_process, echo_address = start_echo(database_url)
        replicas = [first, second, on_ha]
        processes += [replica.process for replica in replicas] + [echo_process]
        for address in [replica.address for replica in replicas] + [echo_address]:
            await wait_until_serving(address)
        note_memory(replicas, "idle")

        one_channel, one_claim = await claim_load(first.address)
        # One channel over both replicas, as a caller of a replicated service has.
        two_channel, two_claim = await claim_load(f"{first.address},{second.address}")
        ha_channel, ha_claim = await claim_load(on_ha.address)
        echo_channel, one_echo = echo_load(echo_address)
        insert_channel, one_echo_insert = echo_load(echo_address, "EchoInsert")
        channels += [one_channel, two_channel, ha_channel, echo_channel, insert_channel]

        print(
            f"replicas benchmark: {os.cpu_count()} cores, {SECONDS:.0f} s per figure,"
            f" grpcio {grpc.__version__}"
        )
        measured: dict[int, dict[str, Figures]] = {}
        for callers in CALLERS:
            heaviest = callers == max(CALLERS)
            one, one_cpu = await measure_replicas(one_claim, callers, [first])
            if heaviest:
                note_memory([first], f"after {callers} callers alone")
            two, two_cpu = await measure_replicas(two_claim, callers, [first, second])
            if heaviest:
                note_memory([first, second], f"after {callers} callers as one of two")
            ha_figures, ha_cpu = await measure_replicas(ha_claim, callers, [on_ha])
            if heaviest:
                note_memory([on_ha], f"after {callers} callers")
            echo, echo_cpu = await measure(one_echo, callers, echo_process.pid)
            echo_insert, echo_insert_cpu = await measure(one_echo_insert, callers, echo_process.pid)
            measured[callers] = {"one": one, "two": two, "ha": ha_figures}
            print(f"{callers} concurrent callers:")
            print(row("Claim, 1 replica", one, one_cpu))
            print(row("Claim, 2 replicas", two, two_cpu))
            print(row("Claim, 1 replica, HA", ha_figures, ha_cpu))
            print(row("echo (same stack)", echo, echo_cpu))
            print(row("echo + INSERT in it", echo_insert, echo_insert_cpu))
        print_ratios(measured)
        print_replication_cost(
            measured,
            database_settings(libpq_url(database_url)),
            database_settings(ha.conninfo()),
        )
        print_memory(replicas)
    finally:
        for channel in channels:
            if hasattr(channel, "lease_keeper"):
                channel.lease_keeper.cancel()
            await channel.close()
        for process in processes:
            process.kill()
            process.wait()
        await asyncio.to_thread(ha.stop)
        drop_test_database(database_url)


if __name__ == "__main__":
    asyncio.run(main())
