"""Services as real processes, for the tests that kill them.

wait_until_serving is nodkit.client's, re-exported for the suites."""

import asyncio
import os
import pathlib
import signal
import socket
import subprocess
import sys

from nodkit.client import wait_until_serving
from nodkit.tls import Tls
from nodtest import observed
from nodtest.children import tied_to_me


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


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
