"""`make run` (scripts/run.py) in a var/ and on ports of its own: the whole
system as a newcomer meets it, for the tests that drive it from outside."""

import os
import pathlib
import pty
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterable, Iterator

import grpc
import psycopg
from pydantic import SecretStr

from nodkit.client import call_metadata, open_channel
from nodkit.tls import Tls
from nodtest import observed
from nodtest.addresses import BROWSER_ALLOWED_NETWORKS
from nodtest.children import tied_to_me
from nodtest.database import libpq_url
from nodtest.processes import free_port

SERVICES = ("claims", "approvals", "payments", "browser", "tasks", "gateway")
# scripts/nodrun/summary.py's line about the demo shop.
DEMO_SHOP_LINE = "  demo shop: "
# The last line of what make run prints once it is up (scripts/nodrun/summary.py).
SUMMARY_END = "Ctrl-C stops everything."


ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _terminal_lines(controller: int) -> Iterator[str]:
    """What was written to a pseudo-terminal, a line at a time, without
    its colours and with plain newlines; until every writer closed it."""
    with os.fdopen(controller, "rb", buffering=0) as terminal:
        pending = b""
        while True:
            try:
                chunk = terminal.read(65536)
            except OSError:  # EIO: nobody writes to it any more
                chunk = b""
            if not chunk:
                break
            pending += chunk
            *complete, pending = pending.split(b"\n")
            for line in complete:
                yield ANSI.sub("", line.decode(errors="replace").rstrip("\r")) + "\n"
        if pending:
            yield ANSI.sub("", pending.decode(errors="replace"))


class MakeRun:
    def __init__(self, root: pathlib.Path, var: pathlib.Path, database: str, **env: str) -> None:
        self.root = root
        self.var = var
        self.database = database
        self.addresses = {name: f"127.0.0.1:{free_port()}" for name in SERVICES}
        # Each process's /metrics (docs/OPERATING.md), on ports of this run's own.
        self.metrics_addresses = {name: f"127.0.0.1:{free_port()}" for name in SERVICES}
        self.env = {
            **os.environ,
            "NOD_RUN_VAR": str(var),
            "NOD_RUN_DATABASE": database,
            "NOD_LOG_FORMAT": "json",
            # The demo sites' addresses (127.0.0.2 and up), as make run's own default.
            "NOD_BROWSER_ALLOWED_NETWORKS": BROWSER_ALLOWED_NETWORKS,
            **env,
        }
        for name, address in self.addresses.items():
            self.env[f"NOD_{name.upper()}_LISTEN"] = address
            self.env[f"NOD_{name.upper()}_ADDR"] = address
            self.env[f"NOD_{name.upper()}_METRICS_LISTEN"] = self.metrics_addresses[name]
        self.env.pop("NOD_DATABASE_URL", None)
        self.process: subprocess.Popen | None = None
        self.output: list[str] = []
        observed.keep_source(f"log: make run ({database})", self._logs)

    @staticmethod
    def services() -> tuple[str, ...]:
        return SERVICES

    @property
    def gateway_url(self) -> str:
        return f"http://{self.addresses['gateway']}"

    def web_password(self) -> str:
        return (self.var / "web-password").read_text().strip()

    def start(self, timeout_s: float = 150, *, terminal: bool = False) -> dict[str, str]:
        """Runs until it says it is up; returns the demo shop's and app's URLs.
        terminal: its output is a pseudo-terminal, as a person's (its
        lines are kept with their colours taken out), not a pipe."""
        self.output = []
        up = threading.Event()
        env = self.env
        if terminal:
            # What a person's shell hands it: no format asked for.
            env = {k: v for k, v in env.items() if not k.startswith("NOD_LOG_")}
            controller, output = pty.openpty()
        self.process = subprocess.Popen(
            # Its supervisor stops every service when it gets SIGTERM, and
            # it gets one when this process dies (nodtest.children).
            tied_to_me([sys.executable, str(self.root / "scripts/run.py")]),
            env=env,
            cwd=self.root,
            stdin=subprocess.DEVNULL,
            stdout=output if terminal else subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        lines: Iterable[str] = self.process.stdout  # type: ignore[assignment]
        if terminal:
            os.close(output)  # the child holds it now
            lines = _terminal_lines(controller)

        def read() -> None:
            for line in lines:
                self.output.append(line)
                # The summary's last line: "nod is up" comes first, and the
                # addresses read below come after it.
                if SUMMARY_END in line or "did not finish" in line:
                    up.set()

        threading.Thread(target=read, daemon=True).start()
        came_up = up.wait(timeout_s)
        failed = any("did not finish" in line for line in self.output)
        if not came_up or failed:
            # What it started must not outlive the test that started it.
            self.stop()
            raise AssertionError("make run did not come up:\n" + "".join(self.output[-60:]))
        text = "".join(self.output)
        return {
            "shop": re.search(r"demo shop: (\S+)", text).group(1),  # type: ignore[union-attr]
            "app": re.search(r"demo app:  (\S+)", text).group(1),  # type: ignore[union-attr]
        }

    def log_text(self) -> str:
        """Everything every process printed so far (their logs)."""
        return "".join(self.output)

    def _logs(self) -> str:
        """Its output but the line that tells a person the demo shop's own,
        published one-time-code seed (the shop's, which nod never shows)."""
        return "".join(line for line in self.output if not line.startswith(DEMO_SHOP_LINE))

    def stop(self) -> None:
        """Ctrl-C, as a person stops it; whatever is still there after a
        minute is killed."""
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGINT)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)

    def clean(self) -> None:
        # What it left in its database is scanned for private values.
        observed.keep_database(self.database_url().replace("+psycopg", ""))
        subprocess.run(
            [sys.executable, str(self.root / "scripts/nodrun/clean.py"), str(self.var)], check=True
        )

    def database_url(self) -> str:
        """The database make run uses (on the local server)."""
        return f"postgresql+psycopg://postgres@127.0.0.1:5432/{self.database}"

    def add_person(self, name: str) -> str:
        """Another person who may sign in (the operator's `add-person`);
        returns their password."""
        password_file = self.var / f"password-{name}"
        subprocess.run(
            [sys.executable, "-m", "nod_gateway", "add-person", name, "--password-file",
             str(password_file)],
            env={**self.env, "NOD_DATABASE_URL": self.database_url(), **self._token_env()},
            check=True,
            capture_output=True,
            timeout=60,
        )  # fmt: skip
        return password_file.read_text().strip()

    def _token_env(self) -> dict[str, str]:
        """The gateway's settings want a service token even to add a person."""
        return {"NOD_SERVICE_TOKEN": (self.var / "service-token").read_text().strip()}

    def meta(self, person: str = "ada"):
        """Metadata for a call made for `person`: the gateway's person of that
        name by their id, as the gateway calls; a name the gateway doesn't
        know goes as it is (someone only the services know, as a script
        calling them directly names them)."""
        token = (self.var / "service-token").read_text().strip()
        return call_metadata(SecretStr(token), self.person_id(person) or person)

    def person_id(self, name: str) -> str | None:
        """The id the services know the gateway's person `name` by."""
        with psycopg.connect(libpq_url(self.database_url())) as conn:
            row = conn.execute("SELECT id FROM gateway.people WHERE name = %s", (name,)).fetchone()
        return row[0] if row else None

    def channel(self, name: str) -> grpc.aio.Channel:
        """A channel to service `name`; under NOD_RUN_TLS, over mutual TLS
        presenting the gateway's certificate (the person's calls come
        through the gateway, so it may make them)."""
        tls = None
        if self.env.get("NOD_RUN_TLS"):
            files = self.var / "tls"
            tls = Tls.from_files(
                str(files / "gateway.pem"), str(files / "gateway-key.pem"), str(files / "ca.pem")
            )
        return open_channel(self.addresses[name], tls=tls, peer=name)
