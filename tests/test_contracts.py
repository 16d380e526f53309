"""The contracts' checks (scripts/contracts.py, run by `make lint`) on a
scratch copy of the protos: a change that would break a deployed client
fails and can't be accepted; a compatible one fails only until it is
accepted, and passes after."""

import pathlib
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
CLAIMS_PROTO = pathlib.Path("protos/nod/claims/v1/claims.proto")
ACCEPTED = pathlib.Path("protos/accepted.binpb")


def contracts(root: pathlib.Path, command: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts/contracts.py"), command, "--root", str(root)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def scratch_copy(tmp_path: pathlib.Path) -> pathlib.Path:
    shutil.copy(ROOT / "buf.yaml", tmp_path / "buf.yaml")
    shutil.copytree(ROOT / "protos", tmp_path / "protos")
    return tmp_path


def edit(root: pathlib.Path, old: str, new: str) -> None:
    path = root / CLAIMS_PROTO
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def test_the_committed_protos_are_the_accepted_ones():
    checked = contracts(ROOT, "check")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_removed_field_fails_and_cant_be_accepted(tmp_path):
    root = scratch_copy(tmp_path)
    before = (root / ACCEPTED).read_bytes()
    edit(root, "  bool granted = 1;\n", "")
    checked = contracts(root, "check")
    assert checked.returncode == 1
    assert '"granted"' in checked.stdout and "break a deployed client" in checked.stderr
    assert contracts(root, "accept").returncode == 1
    assert (root / ACCEPTED).read_bytes() == before


def test_a_removed_field_whose_number_and_name_stay_reserved_is_compatible(tmp_path):
    root = scratch_copy(tmp_path)
    edit(root, "  bool granted = 1;\n", '  reserved 1;\n  reserved "granted";\n')
    assert "break" not in contracts(root, "check").stderr
    assert contracts(root, "accept").returncode == 0


def test_a_compatible_change_passes_once_accepted(tmp_path):
    root = scratch_copy(tmp_path)
    edit(root, "message ClaimResponse {\n", "message ClaimResponse {\n  string note = 99;\n")
    unaccepted = contracts(root, "check")
    assert unaccepted.returncode == 1 and "make accept-protos" in unaccepted.stderr
    assert contracts(root, "accept").returncode == 0
    accepted = contracts(root, "check")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
