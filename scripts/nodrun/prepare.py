"""Run by `make run` before anything serves: every schema brought to head and
the demo person added, in one process.

Each step is the service's own command (`nod-<service> migrate`, then
`nod-gateway add-person`), called in turn in this process rather than as a
process each: every such process imports SQLAlchemy, Alembic, gRPC and
pydantic again, about a second of CPU apiece, so six of them made a warm
`make run` wait some five seconds before anything started. A mistake (the
database refusing us, say) is the command's own one line; the step it
stopped at is said after it, and the exit status is the command's.

python scripts/nodrun/prepare.py PERSON PASSWORD_FILE"""

import importlib
import pathlib
import sys
from collections.abc import Sequence

# scripts/, in place of this file's own folder (sys.path[0] for a script):
# nodrun/secrets.py there would stand in for the standard library's
# `secrets`. The imports below come after it (ruff's E402 is off here).
sys.path[0] = str(pathlib.Path(__file__).resolve().parents[1])

from nodrun.services import GATEWAY, SERVICES


def steps(person: str, password_file: str) -> list[tuple[str, list[str]]]:
    """(module, its arguments) in the order they run."""
    migrating = [service for service in [*SERVICES, GATEWAY] if service.migrates]
    adding = ["add-person", person, "--password-file", password_file]
    return [*((service.module, ["migrate"]) for service in migrating), (GATEWAY.module, adding)]


def run_command(module: str, arguments: Sequence[str]) -> int:
    """`python -m <module> <arguments>`, in this process: its exit status."""
    sys.argv = [module, *arguments]
    try:
        return int(importlib.import_module(f"{module}.__main__").main() or 0)
    except SystemExit as ended:  # argparse, or a command's sys.exit("...")
        if isinstance(ended.code, str):
            print(ended.code, file=sys.stderr)
            return 1
        return int(ended.code or 0)


def main(person: str, password_file: str) -> int:
    for module, arguments in steps(person, password_file):
        status = run_command(module, arguments)
        if status != 0:
            print(f"{module} {arguments[0]} failed", file=sys.stderr)
            return status
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
