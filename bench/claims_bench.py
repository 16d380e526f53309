"""`make bench`: the claims service's Claim rate and latency at 1, 8 and 64
concurrent callers, beside a plain gRPC echo on the same server stack, the
same echo doing one raw INSERT in its handler, and a raw psycopg INSERT ...
ON CONFLICT from here, all measured in this one run; then each figure the
hot path's targets name, beside its target.

Each server is its own process (as deployed), logging at INFO to files under
var/bench; the load comes from this process over loopback.
"""

import asyncio
import base64
import os
import pathlib
import secrets
import subprocess
import sys
import uuid

import grpc
import psycopg_pool
from pydantic import SecretStr

from nod.claims.v1 import claims_pb2 as pb
from nod.claims.v1 import claims_pb2_grpc
from nodkit.client import call_metadata, open_channel
from nodtest.children import tied_to_me
from nodtest.database import create_test_database, drop_test_database, libpq_url
from nodtest.processes import free_port, wait_until_serving

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from load import Figures, run_load  # noqa: E402

CALLERS = tuple(int(n) for n in os.environ.get("BENCH_CALLERS", "1,8,64").split(","))
SECONDS = float(os.environ.get("BENCH_SECONDS", "5"))
TOKEN = SecretStr(secrets.token_urlsafe(16))
LOGS = ROOT / "var" / "bench"


def start(args: list[str], env: dict[str, str], log_name: str) -> subprocess.Popen:
    log = (LOGS / log_name).open("wb")
    return subprocess.Popen(
        tied_to_me(args), env={**os.environ, **env}, stdout=log, stderr=subprocess.STDOUT
    )


async def claim_load(address: str):
    channel = open_channel(address)
    claims = claims_pb2_grpc.ClaimsServiceStub(channel)
    vault = claims_pb2_grpc.VaultServiceStub(channel)
    meta = call_metadata(TOKEN, "bench-person")
    item = (
        await vault.PutItem(
            pb.PutItemRequest(
                item=pb.VaultItem(
                    kind=pb.ENTRY_KIND_SAVED_LOGIN,
                    origin="https://shop.example",
                    fields={"username": "ada@example.com", "password": "bench-password"},
                )
            ),
            metadata=meta,
        )
    ).item
    await claims.RenewHolder(pb.RenewHolderRequest(holder="bench-runner"), metadata=meta)

    async def keep_lease() -> None:  # as a real runner does
        while True:
            await asyncio.sleep(5)
            await claims.RenewHolder(pb.RenewHolderRequest(holder="bench-runner"), metadata=meta)

    channel.lease_keeper = asyncio.ensure_future(keep_lease())

    async def one_claim() -> None:
        reply = await claims.Claim(
            pb.ClaimRequest(
                operation_id=uuid.uuid4().hex,
                kind=pb.ENTRY_KIND_SAVED_LOGIN,
                item_id=item.id,
                origin="https://shop.example",
                task_id="bench-task",
                holder="bench-runner",
            ),
            metadata=meta,
            timeout=10,
        )
        assert reply.granted

    return channel, one_claim


def echo_load(address: str, method: str = "Echo"):
    channel = open_channel(address)
    echo = channel.unary_unary(f"/nod.bench.v1.EchoService/{method}")
    meta = call_metadata(TOKEN, "bench-person")
    payload = os.urandom(120)

    async def one_echo() -> None:
        await echo(payload, metadata=meta, timeout=10)

    return channel, one_echo


async def insert_load(database_url: str, callers: int):
    pool = psycopg_pool.AsyncConnectionPool(
        libpq_url(database_url),
        min_size=min(callers, 20),
        max_size=min(callers, 20),
        kwargs={"autocommit": True},
        open=False,
    )
    await pool.open(wait=True)
    async with pool.connection() as conn:
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS bench_inserts"
            " (op text PRIMARY KEY, holder text, state text)"
        )

    async def one_insert() -> None:
        async with pool.connection() as conn:
            await conn.execute(
                "INSERT INTO bench_inserts (op, holder, state) VALUES (%s, 'bench', 'running')"
                " ON CONFLICT (op) DO NOTHING",
                (uuid.uuid4().hex,),
            )

    return pool, one_insert


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process, from /proc (Linux)."""
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def row(name: str, figures: Figures, server_cpu_us: float | None = None) -> str:
    errors = f"  errors {figures.errors}" if figures.errors else ""
    cpu = f"   server CPU {server_cpu_us:5.0f} us/call" if server_cpu_us else ""
    return (
        f"  {name:<22} {figures.calls_per_s:9.0f} calls/s   p50 {figures.p50_ms:6.2f} ms"
        f"   p99 {figures.p99_ms:6.2f} ms{cpu}{errors}"
    )


def print_targets(measured: dict[int, tuple[Figures, Figures, Figures, Figures]]) -> None:
    """The hot path's three targets, each beside what this run measured."""
    print("targets:")
    if 1 in measured:
        claim, echo, echo_insert, insert = measured[1]
        budget = echo.p50_ms + insert.p50_ms + 0.3
        print(
            f"  1 caller: Claim p50 {claim.p50_ms:.2f} ms; target <= echo + raw INSERT + 0.3 ="
            f" {budget:.2f} ms (echo + INSERT in it, the stack's least for one row:"
            f" {echo_insert.p50_ms:.2f} ms)"
        )
    if 8 in measured:
        print(f"  8 callers: Claim p99 {measured[8][0].p99_ms:.2f} ms; target < 15 ms")
    if 64 in measured:
        claim, echo, _, _ = measured[64]
        ratio = claim.calls_per_s / echo.calls_per_s
        print(f"  64 callers: Claim / echo = {ratio:.2f}; target >= 0.60")


async def measure(call, callers: int, server_pid: int | None = None):
    """Figures, and the server's CPU time per call (independent of how
    busy the rest of the machine is)."""
    await run_load(call, callers, min(1.0, SECONDS))  # warm up: pools, prepared statements
    before = cpu_seconds(server_pid) if server_pid else 0.0
    figures = await run_load(call, callers, SECONDS)
    if not server_pid or not figures.calls_per_s:
        return figures, None
    calls = figures.calls_per_s * SECONDS
    return figures, (cpu_seconds(server_pid) - before) / calls * 1e6


async def main() -> None:
    LOGS.mkdir(parents=True, exist_ok=True)
    database_url = create_test_database()
    processes = []
    try:
        from nod_claims import MIGRATIONS

        MIGRATIONS.upgrade(database_url)
        claims_port, echo_port = free_port(), free_port()
        env = {
            "NOD_DATABASE_URL": database_url,
            "NOD_SERVICE_TOKEN": TOKEN.get_secret_value(),
            "NOD_VAULT_KEY": base64.b64encode(os.urandom(32)).decode(),
            "NOD_CLAIMS_LISTEN": f"127.0.0.1:{claims_port}",
            "NOD_INSTANCE_ID": "bench-claims",
            "NOD_DB_POOL_SIZE": os.environ.get("BENCH_POOL", "10"),
        }
        processes.append(start([sys.executable, "-m", "nod_claims", "serve"], env, "claims.log"))
        processes.append(
            start(
                [
                    sys.executable,
                    str(ROOT / "bench/echo_server.py"),
                    f"127.0.0.1:{echo_port}",
                    TOKEN.get_secret_value(),
                    libpq_url(database_url),
                ],
                {},
                "echo.log",
            )
        )
        await wait_until_serving(f"127.0.0.1:{claims_port}")
        await wait_until_serving(f"127.0.0.1:{echo_port}")
        claims_channel, one_claim = await claim_load(f"127.0.0.1:{claims_port}")
        echo_channel, one_echo = echo_load(f"127.0.0.1:{echo_port}")
        insert_channel, one_echo_insert = echo_load(f"127.0.0.1:{echo_port}", "EchoInsert")

        print(
            f"claims benchmark: {os.cpu_count()} cores, {SECONDS:.0f} s per figure,"
            f" grpcio {grpc.__version__}"
        )
        measured = {}
        for callers in CALLERS:
            claim, claim_cpu = await measure(one_claim, callers, processes[0].pid)
            echo, echo_cpu = await measure(one_echo, callers, processes[1].pid)
            echo_insert, echo_insert_cpu = await measure(one_echo_insert, callers, processes[1].pid)
            pool, one_insert = await insert_load(database_url, callers)
            insert, _ = await measure(one_insert, callers)
            await pool.close()
            measured[callers] = claim, echo, echo_insert, insert
            print(f"{callers} concurrent caller{'s' if callers > 1 else ''}:")
            print(row("Claim", claim, claim_cpu))
            print(row("echo (same stack)", echo, echo_cpu))
            print(row("echo + INSERT in it", echo_insert, echo_insert_cpu))
            print(row("raw INSERT ON CONFLICT", insert))
            print(f"  Claim / echo = {claim.calls_per_s / echo.calls_per_s:.2f}")
        print_targets(measured)
        claims_channel.lease_keeper.cancel()
        await claims_channel.close()
        await echo_channel.close()
        await insert_channel.close()
    finally:
        for process in processes:
            process.kill()
            process.wait()
        drop_test_database(database_url)


if __name__ == "__main__":
    asyncio.run(main())
