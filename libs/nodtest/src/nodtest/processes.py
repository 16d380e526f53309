"""Services as real processes, for the tests that kill them.

wait_until_serving is nodkit.client's, re-exported for the suites."""

import asyncio
import itertools
import os
import pathlib
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator

from nodkit.client import wait_until_serving
from nodkit.tls import Tls
from nodtest import observed
from nodtest.addresses import BROWSER_ALLOWED_NETWORKS
from nodtest.children import tied_to_me

# A port the kernel picks (bind to 0) comes from its ephemeral range, the
# same range every outgoing connection's local port comes from: on a busy
# machine a PostgreSQL or gRPC connection took it between the pick and the
# service's bind ("Address already in use"). Ports are picked below that
# range instead, where no connection is ever given one, each process from
# its own slice so two test processes don't pick the same one.
PORT_SLICES = 64


def _ephemeral_start() -> int:
    try:
        return int(pathlib.Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def _port_picks(low: int = 10000) -> Iterator[int] | None:
    size = (_ephemeral_start() - low) // PORT_SLICES
    if size < 16:
        return None  # no room below the kernel's range
    start = low + (os.getpid() % PORT_SLICES) * size
    return itertools.cycle(range(start, start + size))


_picks = _port_picks()


def free_port() -> int:
    """A loopback port nobody listens on, for a service started next."""
    if _picks is None:  # let the kernel choose
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            return sock.getsockname()[1]
    for port in _picks:  # round the slice; one still bound is passed over
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise AssertionError("unreachable: the picks go round forever")


def run_migrate(module: str, env: dict[str, str]) -> None:
    subprocess.run(
        [sys.executable, "-m", module, "migrate"],
        env={**os.environ, **env},
        check=True,
        capture_output=True,
        timeout=120,
    )


class ServiceProcess:
    """`python -m <module> serve` with its output kept in a file; it dies
    with the process that started it (nodtest.children)."""

    def __init__(self, module: str, env: dict[str, str], log_path: pathlib.Path) -> None:
        self.module = module
        if module == "nod_browser":
            # The test sites' addresses, unless the test says otherwise.
            env = {"NOD_BROWSER_ALLOWED_NETWORKS": BROWSER_ALLOWED_NETWORKS, **env}
        self.env = env
        self.log_path = log_path
        self.process: subprocess.Popen | None = None
        observed.keep_file(f"log: {module} ({log_path.name})", log_path)

    def start(self) -> None:
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            tied_to_me([sys.executable, "-m", self.module, "serve"]),
            env={**os.environ, **self.env},
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()

    def kill(self, signum: int = signal.SIGKILL, timeout_s: float = 30.0) -> int:
        assert self.process is not None
        self.process.send_signal(signum)
        return self.process.wait(timeout=timeout_s)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.kill(signal.SIGKILL)

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


# (module, database URL) this test process has migrated: a schema at its
# head stays there, and each `migrate` is a Python process of its own (over a
# second of CPU) that the fault cases' peers would start again and again.
_migrated: set[tuple[str, str]] = set()


async def migrate_once(module: str, env: dict[str, str]) -> None:
    done = (module, env.get("NOD_DATABASE_URL", ""))
    if done not in _migrated:
        await asyncio.to_thread(run_migrate, module, env)
        _migrated.add(done)


class Peer:
    """Another service a suite depends on, run as its own process (as
    deployed): migrated, listening on a free port, SERVING. Its log is a file
    the tests can read (what a log contains, and never contains). With
    NOD_TLS_* in its environment it serves over TLS, and is waited for so."""

    def __init__(self, name: str, env: dict[str, str], log_path: pathlib.Path) -> None:
        self.name = name
        self.address = f"127.0.0.1:{free_port()}"
        env = {**env, f"NOD_{name.upper()}_LISTEN": self.address}
        env.setdefault("NOD_INSTANCE_ID", f"{name}-peer")
        self.process = ServiceProcess(f"nod_{name}", env, log_path)

    async def start(self) -> "Peer":
        await migrate_once(self.process.module, self.process.env)
        self.process.start()
        await wait_until_serving(self.address, tls=self.tls(), peer=self.name)
        return self

    def tls(self) -> Tls | None:
        """Its own certificate, which health (open to any caller) accepts."""
        env = self.process.env
        if not env.get("NOD_TLS_CERT_FILE"):
            return None
        return Tls.from_files(
            env["NOD_TLS_CERT_FILE"], env["NOD_TLS_KEY_FILE"], env["NOD_TLS_CA_FILE"]
        )

    def log_text(self) -> str:
        return self.process.log_text()

    def stop(self) -> None:
        self.process.stop()
