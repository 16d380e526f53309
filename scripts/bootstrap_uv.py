"""Installs uv into a fresh virtual environment with pip, at the version and
hashes uv.lock pins for it; uv then installs everything else from the lock.

Usage: bootstrap_uv.py VENV
"""

import pathlib
import subprocess
import sys
import tempfile
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent


def uv_requirement() -> str:
    lock = tomllib.loads((ROOT / "uv.lock").read_text())
    (uv,) = [package for package in lock["package"] if package["name"] == "uv"]
    files = [*uv.get("wheels", []), *([uv["sdist"]] if "sdist" in uv else [])]
    hashes = " ".join(f"--hash={file['hash']}" for file in files)
    return f"uv=={uv['version']} {hashes}\n"


def main(venv: pathlib.Path) -> None:
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as requirements:
        requirements.write(uv_requirement())
        requirements.flush()
        pip = [venv / "bin" / "pip", "install", "--quiet", "--require-hashes"]
        subprocess.run([*pip, "-r", requirements.name], check=True)


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]))
