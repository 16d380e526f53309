"""docs/CONFIGURATION.md is generated from the settings classes themselves:
a setting added to a class makes `config_reference.py --check` (which `make
lint` runs) fail until the page is written again, and the page never shows
a secret's value. The classes are changed the way a developer would, by
editing a copy of a service's package that shadows the installed one."""

import os
import pathlib
import shutil
import subprocess
import sys

import nod_claims

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "config_reference.py"
CANARY = "canary-made-up-token-6c1f"

MADE_UP_FIELDS = f'''
    made_up_wait_s: float = Field(
        42.5, gt=0, description="A made-up wait that no real service has."
    )
    made_up_token: SecretStr = Field(
        SecretStr("{CANARY}"), description="A made-up token with a default."
    )
'''


def claims_with(tmp_path: pathlib.Path, added: str) -> pathlib.Path:
    """A copy of nod_claims whose ClaimsSettings ends with `added`; the folder
    to put first on PYTHONPATH."""
    shadow = tmp_path / "shadow"
    shutil.copytree(pathlib.Path(nod_claims.__file__).parent, shadow / "nod_claims")
    settings = shadow / "nod_claims" / "settings.py"
    # What the added fields are made of, whatever the module imports itself.
    imports = "from pydantic import Field, SecretStr\n"
    settings.write_text(imports + settings.read_text().rstrip("\n") + "\n" + added)
    return shadow


def run(*args: str, shadow: pathlib.Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if shadow is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(shadow), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_committed_page_matches_the_classes():
    checked = run("--check")
    assert checked.returncode == 0, checked.stderr


def test_a_made_up_setting_fails_the_check_until_written_and_its_secret_is_never_shown(tmp_path):
    shadow = claims_with(tmp_path, MADE_UP_FIELDS)

    checked = run("--check", shadow=shadow)
    assert checked.returncode == 1
    said = checked.stdout + checked.stderr
    assert "read by the code, missing from the page: NOD_CLAIMS_MADE_UP_WAIT_S" in said
    assert "read by the code, missing from the page: NOD_CLAIMS_MADE_UP_TOKEN" in said
    assert CANARY not in said

    page = tmp_path / "CONFIGURATION.md"
    written = run("--output", str(page), shadow=shadow)
    assert written.returncode == 0, written.stderr
    text = page.read_text()
    assert (
        "| `NOD_CLAIMS_MADE_UP_WAIT_S` | `42.5` | number, > 0 | `NOD_CLAIMS_MADE_UP_WAIT_S_FILE`"
        " | A made-up wait that no real service has. |"
    ) in text
    assert "| `NOD_CLAIMS_MADE_UP_TOKEN` | set (not shown) | secret string |" in text
    assert CANARY not in text
    # Everything else on the page is as committed: only the two rows are new.
    committed = (ROOT / "docs" / "CONFIGURATION.md").read_text().splitlines()
    added = [line for line in text.splitlines() if line not in committed]
    assert [line.split(" | ")[0] for line in added] == [
        "| `NOD_CLAIMS_MADE_UP_WAIT_S`",
        "| `NOD_CLAIMS_MADE_UP_TOKEN`",
    ]


def test_a_setting_without_a_description_is_named_and_nothing_is_written(tmp_path):
    shadow = claims_with(tmp_path, "    made_up_count: int = 3\n")
    page = tmp_path / "CONFIGURATION.md"

    written = run("--output", str(page), shadow=shadow)

    assert written.returncode == 1
    assert "no Field(description=...) for NOD_CLAIMS_MADE_UP_COUNT" in written.stderr
    assert "ClaimsSettings.made_up_count" in written.stderr
    assert not page.exists()
