"""nodctl against the whole system as `make run` starts it (on ports and in a
database of its own), with the operator's own token from make run's
var/service-tokens and nothing else: what an operator has."""

import asyncio
import os
import pathlib
import sys
import tempfile
import uuid
from dataclasses import dataclass

import pytest

from nodtest.make_run import MakeRun

ROOT = pathlib.Path(__file__).resolve().parents[3]
NODCTL = os.path.join(os.path.dirname(sys.executable), "nodctl")


@dataclass(frozen=True)
class Ran:
    code: int
    out: str
    err: str


@pytest.fixture(scope="package")
def system(tmp_path_factory):
    run = MakeRun(
        ROOT,
        tmp_path_factory.mktemp("make-run") / "var",
        f"nod_test_nodctl_{uuid.uuid4().hex[:8]}",
    )
    # A loaded machine (other test runs share it) can take minutes to start it.
    run.urls = run.start(timeout_s=400)  # type: ignore[attr-defined]
    yield run
    run.stop()
    run.clean()


def operator_token(run: MakeRun) -> str:
    lines = (run.var / "service-tokens").read_text().splitlines()
    return dict(line.split(" ", 1) for line in lines if line.strip())["operator"]


def single(run: MakeRun, person: str):
    """The single token's metadata, for setting up what a test needs: for
    the person named `person`, by the id the gateway gave them."""
    return run.meta(person)


@pytest.fixture(scope="package")
def operator_env(system) -> dict[str, str]:
    env = {key: value for key, value in system.env.items() if key.startswith("NOD_")}
    for name in ("NOD_SERVICE_TOKEN", "NOD_SERVICE_TOKENS", "NOD_FAULTS", "NOD_RUN_VAR"):
        env.pop(name, None)
    env["NOD_DATABASE_URL"] = system.database_url()
    env["NOD_SERVICE_TOKENS"] = f"operator:{operator_token(system)}"
    env["NOD_GATEWAY_CALL_TIMEOUT_S"] = "30"
    return env


@pytest.fixture(scope="package")
def nodctl(operator_env):
    """Runs the console script as an operator would, in a folder of its own
    (no var/ to fall back on), with the operator's environment alone."""
    base = {key: value for key, value in os.environ.items() if not key.startswith("NOD_")}

    async def run(*args: str, stdin: str = "", env: dict[str, str] | None = None) -> Ran:
        process = await asyncio.create_subprocess_exec(
            NODCTL, *args,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env={**base, **(env or operator_env)},
            cwd=tempfile.gettempdir(),
        )  # fmt: skip
        # A new interpreter per command can take many seconds on a loaded machine.
        out, err = await asyncio.wait_for(process.communicate(stdin.encode()), timeout=240)
        ran = Ran(process.returncode or 0, out.decode(), err.decode())
        assert "Traceback" not in ran.err, ran.err
        return ran

    return run
