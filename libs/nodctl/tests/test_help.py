"""Every command's --help works and says what it does, with no settings
at all (help needs none); the installed console script's errors are
readable, never a trace."""

import os
import subprocess
import sys

import pytest

from nodctl.__main__ import main

COMMANDS = [
    [],
    ["health"],
    ["uncertain"],
    ["task"],
    ["resolve"],
    ["people"],
    ["people", "list"],
    ["people", "add"],
    ["people", "remove"],
    ["people", "reset-password"],
    ["people", "sessions"],
    ["people", "revoke"],
    ["vault"],
    ["vault", "reseal"],
    ["vault", "drop-unreadable"],
]
NODCTL = os.path.join(os.path.dirname(sys.executable), "nodctl")


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "nodctl")
def test_help(command, capsys):
    with pytest.raises(SystemExit) as ended:
        main([*command, "--help"])
    assert ended.value.code == 0
    shown = capsys.readouterr()
    assert shown.out.startswith(f"usage: nodctl {' '.join(command)}".rstrip())
    assert len(shown.out.splitlines()) > 3 and not shown.err


def test_the_console_script_shows_help(tmp_path):
    shown = subprocess.run(
        [NODCTL, "--help"], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert shown.returncode == 0 and "uncertain" in shown.stdout


def test_a_wrong_command_is_a_usage_error_not_a_trace(tmp_path):
    shown = subprocess.run(
        [NODCTL, "people", "delete", "ada"], capture_output=True, text=True, timeout=120,
        cwd=tmp_path,
    )  # fmt: skip
    assert shown.returncode == 2
    assert "invalid choice: 'delete'" in shown.stderr and "Traceback" not in shown.stderr


def test_no_credentials_is_a_readable_error(tmp_path):
    env = {key: value for key, value in os.environ.items() if not key.startswith("NOD_")}
    shown = subprocess.run(
        [NODCTL, "uncertain"], capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env
    )
    assert shown.returncode == 1
    assert shown.stderr.startswith("nodctl: the NOD_* settings are not usable")
    assert "NOD_SERVICE_TOKEN" in shown.stderr and "Traceback" not in shown.stderr


# nodctl printing many lines (as `nodctl uncertain` does with many rows),
# line by line as to a terminal, so the closed pipe is met while it runs;
# its settings and the services it would ask are left out.
MANY_LINES = """
import sys
sys.stdout = open(1, "w", buffering=1, closefd=False)
import nodctl.__main__ as nodctl
from nodctl.output import say

async def many_rows(settings, args):
    for n in range(10_000):
        say(f"row {n}")
    return 0

nodctl._run, nodctl.load = many_rows, lambda: None
sys.exit(nodctl.main(["uncertain"]))
"""


def test_output_cut_short_by_a_closed_pipe_ends_quietly():
    """`nodctl ... | head`: the reader is gone before nodctl writes. It
    ends as a shell tool ends on SIGPIPE (128 + 13), saying nothing: no
    "database did not answer: Broken pipe", no trace."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        run = subprocess.run(
            [sys.executable, "-c", MANY_LINES],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
    finally:
        os.close(write_end)
    assert run.returncode == 141
    assert run.stderr == ""
