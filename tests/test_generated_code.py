"""The committed generated code is exactly what the protos generate."""

import filecmp
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def differences(left: pathlib.Path, right: pathlib.Path) -> list[str]:
    comparison = filecmp.dircmp(left, right, ignore=["__pycache__"])
    found = [f"only in committed: {n}" for n in comparison.left_only]
    found += [f"missing from committed: {n}" for n in comparison.right_only]
    found += [f"differs: {n}" for n in comparison.diff_files]
    for name in comparison.subdirs:
        found += [f"{name}/{d}" for d in differences(left / name, right / name)]
    return found


def test_regenerating_changes_nothing(tmp_path):
    subprocess.run([sys.executable, str(ROOT / "scripts/gen_protos.py"), str(tmp_path)], check=True)
    assert differences(ROOT / "gen/python/nod", tmp_path / "nod") == []
