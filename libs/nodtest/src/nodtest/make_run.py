"""`make run` (scripts/run.py) in a var/ and on ports of its own: the whole
system as a newcomer meets it, for the tests that drive it from outside."""

import os
import pathlib
import re
import signal
import subprocess
import sys
import threading

import grpc
from pydantic import SecretStr

from nodkit.client import call_metadata, open_channel
from nodkit.tls import Tls
from nodtest.children import tied_to_me
from nodtest.processes import free_port

SERVICES = ("claims", "approvals", "payments", "browser", "tasks", "gateway")


class MakeRun:
    def __init__(self, root: pathlib.Path, var: pathlib.Path, database: str, **env: str) -> None:
        self.root = root
        self.var = var
        self.database = database
        self.addresses = {name: f"127.0.0.1:{free_port()}" for name in SERVICES}
        self.env = {
            **os.environ,
            "NOD_RUN_VAR": str(var),
            "NOD_RUN_DATABASE": database,
            "NOD_LOG_FORMAT": "json",
            **env,
        }
        for name, address in self.addresses.items():
            self.env[f"NOD_{name.upper()}_LISTEN"] = address
            self.env[f"NOD_{name.upper()}_ADDR"] = address
        self.env.pop("NOD_DATABASE_URL", None)
        self.process: subprocess.Popen | None = None
        self.output: list[str] = []

    @property
    def gateway_url(self) -> str:
        return f"http://{self.addresses['gateway']}"

    def web_password(self) -> str:
        return (self.var / "web-password").read_text().strip()

    def start(self, timeout_s: float = 150) -> dict[str, str]:
        """Runs until "nod is up"; returns the demo shop's and app's URLs."""
        self.output = []
        up = threading.Event()
        self.process = subprocess.Popen(
            # Its supervisor stops every service when it gets SIGTERM, and
            # it gets one when this process dies (nodtest.children).
            tied_to_me([sys.executable, str(self.root / "scripts/run.py")]),
            env=self.env,
            cwd=self.root,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )

        def read() -> None:
            for line in self.process.stdout:  # type: ignore[union-attr]
                self.output.append(line)
                if "nod is up" in line or "did not finish" in line:
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
        token = (self.var / "service-token").read_text().strip()
        return call_metadata(SecretStr(token), person)

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
