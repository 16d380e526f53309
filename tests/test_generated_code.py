"""The committed generated code is exactly what the protos generate."""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_regenerating_changes_nothing():
    check = subprocess.run(
        [sys.executable, str(ROOT / "scripts/gen_protos.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0, check.stderr
