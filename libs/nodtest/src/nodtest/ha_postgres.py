"""A highly available PostgreSQL on this machine, for the failover tests:
Patroni (Debian's `patroni`) managing two PostgreSQL servers with
synchronous replication, its leader elected through etcd (Debian's
`etcd-server`). Services reach it with a multi-host URL and
`target_session_attrs=read-write`, as a team's services reach theirs.

Missing Patroni, etcd or PostgreSQL's server binaries fail the test that
asks for it, never skip it. PostgreSQL refuses to run as root: when the
tests do, Patroni (and the servers it starts) run as the `postgres` user.
Everything started is tied to the test process (nodtest.children) and
stopped with it."""

import asyncio
import contextlib
import glob
import json
import os
import pathlib
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import psycopg
from psycopg.conninfo import make_conninfo

from nodtest.children import tied_to_me
from nodtest.processes import free_port

SCOPE = "nodtest"
# Runs the guard that ties each child to the test (as `postgres` when the
# tests run as root, who can't reach a virtualenv under /root).
SYSTEM_PYTHON = "/usr/bin/python3"
# Seconds: how long a leader's key lives in etcd without renewal, and how
# often each member checks. A dead leader is replaced within about TTL_S.
TTL_S = 10
LOOP_WAIT_S = 1
RETRY_TIMEOUT_S = 4


def postgres_bin_dir() -> str:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"))
    if not found:
        raise RuntimeError("PostgreSQL's server binaries are required (Debian's postgresql)")
    return str(pathlib.Path(found[-1]).parent)


def required(program: str, package: str) -> str:
    path = shutil.which(program)
    if path is None:
        raise RuntimeError(f"{program} is required for the failover tests: install {package}")
    return path


@dataclass
class Member:
    name: str
    pg_port: int
    rest_port: int
    data_dir: pathlib.Path
    config: pathlib.Path
    process: subprocess.Popen | None = None

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.pg_port}"

    def postmaster_pid(self) -> int | None:
        """The member's PostgreSQL server, while it runs (its pid file
        outlives a SIGKILL; a pid since given to another program is not it)."""
        try:
            pid = int((self.data_dir / "postmaster.pid").read_text().split()[0])
            command = pathlib.Path(f"/proc/{pid}/cmdline").read_bytes()
        except (OSError, ValueError, IndexError):
            return None
        return pid if b"postgres" in command and str(self.data_dir).encode() in command else None


@dataclass
class HaPostgres:
    """start() it, then url(database) for services; kill_leader() is a
    primary lost with no warning (its Patroni and its server SIGKILLed)."""

    root: pathlib.Path = field(default_factory=lambda: pathlib.Path(tempfile.mkdtemp("-ha")))
    members: list[Member] = field(default_factory=list)
    etcd: subprocess.Popen | None = None
    etcd_port: int = 0

    def _run_as(self) -> dict:
        return {"user": "postgres", "group": "postgres"} if os.geteuid() == 0 else {}

    async def start(self, timeout_s: float = 90.0) -> None:
        patroni = required("patroni", "Debian's patroni")
        etcd = required("etcd", "Debian's etcd-server")
        bin_dir = postgres_bin_dir()
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres", "postgres")
        self.etcd_port, peer_port = free_port(), free_port()
        client, peer = f"http://127.0.0.1:{self.etcd_port}", f"http://127.0.0.1:{peer_port}"
        self.etcd = self._spawn(
            [
                etcd,
                "--name=nodtest",
                f"--data-dir={self.root / 'etcd'}",
                f"--listen-client-urls={client}",
                f"--advertise-client-urls={client}",
                f"--listen-peer-urls={peer}",
                f"--initial-advertise-peer-urls={peer}",
                f"--initial-cluster=nodtest={peer}",
                # Patroni from Debian speaks etcd's v2 API.
                "--enable-v2=true",
            ],
            "etcd.log",
        )
        for name in ("pg1", "pg2"):
            member = Member(
                name,
                free_port(),
                free_port(),
                self.root / name,
                self.root / f"{name}.json",
            )
            member.config.write_text(json.dumps(self._config(member, bin_dir)))
            self.members.append(member)
        # The first bootstraps the cluster; the second copies it and follows.
        self._start_member(self.members[0], patroni)
        await self.wait_for(lambda c: self.leader_of(c) == "pg1", timeout_s, "pg1 to lead")
        self._start_member(self.members[1], patroni)
        await self.wait_for(
            lambda c: self._role_of(c, "pg2") == "sync_standby",
            timeout_s,
            "pg2 to follow synchronously",
        )

    def _config(self, member: Member, bin_dir: str) -> dict:
        return {
            "scope": SCOPE,
            "name": member.name,
            "restapi": {
                "listen": f"127.0.0.1:{member.rest_port}",
                "connect_address": f"127.0.0.1:{member.rest_port}",
            },
            "etcd": {"host": f"127.0.0.1:{self.etcd_port}"},
            "bootstrap": {
                "dcs": {
                    "ttl": TTL_S,
                    "loop_wait": LOOP_WAIT_S,
                    "retry_timeout": RETRY_TIMEOUT_S,
                    "maximum_lag_on_failover": 1024 * 1024,
                    # A commit is answered once the standby has it: a
                    # promoted standby has every commit a caller was told of.
                    "synchronous_mode": True,
                    "postgresql": {
                        "use_pg_rewind": False,
                        "parameters": {"max_connections": 200, "wal_level": "replica"},
                    },
                },
                "initdb": [{"encoding": "UTF8"}, {"auth": "trust"}],
                "pg_hba": [
                    "local all all trust",
                    "host all all 127.0.0.1/32 trust",
                    "host replication all 127.0.0.1/32 trust",
                ],
            },
            "postgresql": {
                "listen": member.host,
                "connect_address": member.host,
                "data_dir": str(member.data_dir),
                "bin_dir": bin_dir,
                "pgpass": str(self.root / f"{member.name}.pgpass"),
                "authentication": {
                    "superuser": {"username": "postgres"},
                    "replication": {"username": "postgres"},
                },
                "parameters": {"unix_socket_directories": str(self.root)},
            },
        }

    def _spawn(self, argv: list[str], log_name: str) -> subprocess.Popen:
        with (self.root / log_name).open("ab") as log:
            return subprocess.Popen(
                tied_to_me(argv, python=SYSTEM_PYTHON),
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=self.root,
                **self._run_as(),
            )

    def _start_member(self, member: Member, patroni: str) -> None:
        member.process = self._spawn([patroni, str(member.config)], f"{member.name}.log")

    # --- what the cluster says ---------------------------------------------------

    def cluster(self) -> dict:
        """Patroni's view of the cluster (GET /cluster on a live member)."""
        for member in self.members:
            if member.process is None or member.process.poll() is not None:
                continue
            try:
                url = f"http://127.0.0.1:{member.rest_port}/cluster"
                with urllib.request.urlopen(url, timeout=2) as reply:
                    return json.loads(reply.read())
            except OSError:
                continue
        return {"members": []}

    @staticmethod
    def _role_of(cluster: dict, name: str) -> str:
        return next(
            (
                m.get("role", "")
                for m in cluster["members"]
                if m["name"] == name and m.get("state") in ("running", "streaming")
            ),
            "",
        )

    @staticmethod
    def leader_of(cluster: dict) -> str:
        return next(
            (
                m["name"]
                for m in cluster["members"]
                if m.get("role") == "leader" and m.get("state") == "running"
            ),
            "",
        )

    def leader(self) -> str:
        return self.leader_of(self.cluster())

    async def wait_for(self, holds, timeout_s: float, what: str) -> dict:
        deadline = time.monotonic() + timeout_s
        while True:
            cluster = await asyncio.to_thread(self.cluster)
            if holds(cluster):
                return cluster
            if time.monotonic() > deadline:
                logs = {p.name: p.read_text()[-2000:] for p in self.root.glob("*.log")}
                raise AssertionError(f"waited {timeout_s} s for {what}: {cluster}\n{logs}")
            await asyncio.sleep(0.5)

    # --- for services and tests -------------------------------------------------

    def url(self, database: str = "postgres") -> str:
        """SQLAlchemy's URL for every member, the primary chosen at connect."""
        hosts = "&".join(f"host={m.host}" for m in self.members)
        return f"postgresql+psycopg://postgres@/{database}?{hosts}&target_session_attrs=read-write"

    def conninfo(self, database: str = "postgres") -> str:
        return make_conninfo(
            host=",".join("127.0.0.1" for _ in self.members),
            port=",".join(str(m.pg_port) for m in self.members),
            user="postgres",
            dbname=database,
            target_session_attrs="read-write",
            connect_timeout=3,
        )

    def create_database(self, name: str) -> str:
        with psycopg.connect(self.conninfo(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def kill_leader(self) -> str:
        """SIGKILL to the leader's Patroni and its PostgreSQL server at once:
        the primary is gone with no shutdown, its clients' connections cut."""
        name = self.leader()
        member = next(m for m in self.members if m.name == name)
        postmaster = member.postmaster_pid()
        assert member.process is not None
        member.process.kill()
        if postmaster is not None:
            os.kill(postmaster, signal.SIGKILL)
        member.process.wait(timeout=10)
        return name

    def stop(self) -> None:
        for member in self.members:
            if member.process is not None and member.process.poll() is None:
                member.process.terminate()
        for member in self.members:
            if member.process is None:
                continue
            try:
                member.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                member.process.kill()
            # A server whose Patroni was killed is still running: stop it too.
            if (pid := member.postmaster_pid()) is not None:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        if self.etcd is not None:
            self.etcd.terminate()
            self.etcd.wait(timeout=10)
        shutil.rmtree(self.root, ignore_errors=True)


@contextlib.asynccontextmanager
async def running_pair() -> AsyncIterator[HaPostgres]:
    """A started pair, stopped however the block ends (a start that fails
    half-way included)."""
    ha = HaPostgres()
    try:
        await ha.start()
        yield ha
    finally:
        await asyncio.to_thread(ha.stop)
