"""Install one nod service from wheels alone, into a fresh virtualenv.

    python deploy/docker/install_service.py nod-claims /opt/nod

Every image's build stage runs this, and so does tests/test_wheels.py, so
what the test proves (the service migrates and serves from its wheels,
with no checkout beside it) is what the image holds:

  1. the third-party packages exactly as uv.lock pins them, with their hashes
     (`uv export --package <service> --no-dev --frozen`);
  2. a wheel of every workspace package the service needs (itself, nodkit,
     nod-protos), built from a clean copy of its folder, so nothing a local
     build left behind (build/, *.egg-info) leaks into it;
  3. both installed with --no-deps, then `uv pip check`: a dependency a
     pyproject forgot is an error here, never a silent download.

Standard library only: it runs before anything is installed.
"""

import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib

REPOSITORY = pathlib.Path(__file__).resolve().parents[2]
# What an image installs for its service: the gateway's carries the operator's
# nodctl too (nodctl imports the gateway and adds nothing else), so an
# operator runs it in the cluster from the image already there
# (deploy/k8s/operator/).
INSTALLED_WITH = {"nod-gateway": "nodctl"}


def run(*command: str | pathlib.Path, cwd: pathlib.Path = REPOSITORY) -> str:
    env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never", "UV_LINK_MODE": "copy"}
    done = subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout


def workspace_members(uv: str, package: str) -> list[pathlib.Path]:
    """The workspace packages `package` needs, itself included, as uv.lock says."""
    exported = run(uv, "export", "--package", package, "--no-dev", "--frozen", "--no-header",
                   "--no-hashes", "--no-annotate")  # fmt: skip
    return [
        REPOSITORY / line[3:].strip() for line in exported.splitlines() if line.startswith("-e ")
    ]


def wheel_name(member: pathlib.Path) -> str:
    project = tomllib.loads((member / "pyproject.toml").read_text())["project"]
    name = re.sub(r"[-_.]+", "_", project["name"]).lower()
    return f"{name}-{project['version']}-"


LEFT_BEHIND = shutil.ignore_patterns("build", "*.egg-info", "__pycache__", "tests")


def build_wheel(uv: str, member: pathlib.Path, wheels: pathlib.Path) -> pathlib.Path:
    """The member's wheel in `wheels`, built once (another service's install
    may have built it already)."""
    prefix = wheel_name(member)
    found = sorted(wheels.glob(f"{prefix}*.whl"))
    if not found:
        with tempfile.TemporaryDirectory() as scratch:
            source = pathlib.Path(scratch) / member.name
            shutil.copytree(member, source, ignore=LEFT_BEHIND)
            run(uv, "build", "--quiet", "--wheel", source, "--out-dir", wheels)
        found = sorted(wheels.glob(f"{prefix}*.whl"))
    if len(found) != 1:
        raise RuntimeError(f"expected one {prefix}*.whl in {wheels}, found {found}")
    return found[0]


def install(
    package: str,
    destination: pathlib.Path,
    *,
    uv: str = "uv",
    wheels: pathlib.Path,
    python: str = sys.executable,
    compile_bytecode: bool = False,
) -> list[pathlib.Path]:
    """Installs `package` (and what INSTALLED_WITH adds to it) into a new
    virtualenv at `destination`; returns the workspace wheels it used."""
    package = INSTALLED_WITH.get(package, package)
    wheels.mkdir(parents=True, exist_ok=True)
    requirements = wheels / f"{package}.requirements.txt"
    run(uv, "export", "--package", package, "--no-dev", "--frozen", "--no-header",
        "--no-emit-workspace", "--output-file", requirements)  # fmt: skip
    built = [build_wheel(uv, member, wheels) for member in workspace_members(uv, package)]
    run(uv, "venv", "--quiet", "--python", python, destination)
    target = destination / "bin" / "python"
    compiling = ["--compile-bytecode"] if compile_bytecode else []
    run(uv, "pip", "install", "--quiet", "--python", target, "--no-deps", "--require-hashes",
        *compiling, "--requirement", requirements)  # fmt: skip
    run(uv, "pip", "install", "--quiet", "--python", target, "--no-deps", *compiling, *built)
    run(uv, "pip", "check", "--python", target)
    return built


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("package", help="the workspace package: nod-claims, nod-gateway, ...")
    parser.add_argument("destination", type=pathlib.Path, help="the new virtualenv")
    parser.add_argument("--uv", default="uv")
    parser.add_argument("--wheels", type=pathlib.Path, default=pathlib.Path("/tmp/nod-wheels"))
    parser.add_argument("--python", default=sys.executable, help="the venv's interpreter")
    parser.add_argument("--compile-bytecode", action="store_true")
    args = parser.parse_args()
    try:
        built = install(
            args.package,
            args.destination,
            uv=args.uv,
            wheels=args.wheels,
            python=args.python,
            compile_bytecode=args.compile_bytecode,
        )
    except subprocess.CalledProcessError as error:
        sys.stderr.write(f"{' '.join(error.cmd)} failed:\n{error.stdout}{error.stderr}")
        return 1
    for wheel in built:
        print(f"{wheel.name} {wheel.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
