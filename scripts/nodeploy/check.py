"""`make lint`'s checks of deploy/: python -m scripts.nodeploy.check

- every Dockerfile is hadolint-clean and is the one pattern with its own
  names (claims.Dockerfile with the service's name and port; the browser's
  adds its Chromium block), pinning the uv that pyproject.toml pins;
- the base and every overlay, rendered, are valid against the Kubernetes
  schemas (kubernetes-validate, strict: an unknown field is an error) of the
  oldest and newest versions we support;
- checkov finds nothing in the rendered manifests; each check skipped is
  named, with its reason, in a `checkov.io/skip<n>` annotation where it is
  skipped (annotations survive rendering; comments would not).
"""

import pathlib
import re
import subprocess
import sys
import tempfile
import tomllib

import kubernetes_validate
import yaml

from scripts.nodeploy.manifests import Manifest, render

REPOSITORY = pathlib.Path(__file__).resolve().parents[2]
DOCKER = REPOSITORY / "deploy" / "docker"
KUSTOMIZATIONS = [
    REPOSITORY / "deploy" / "k8s" / "base",
    REPOSITORY / "deploy" / "k8s" / "overlays" / "dev",
]
KUBERNETES_VERSIONS = ["1.34.0", "1.37.0"]
PORTS = {
    "claims": 50051,
    "approvals": 50052,
    "payments": 50053,
    "browser": 50054,
    "tasks": 50055,
    "gateway": 8080,
}
# Where each serves /metrics (docs/OPERATING.md): 2000 above its gRPC port
# (health is 1000 above it); the gateway, HTTP, on 9080.
METRICS_PORTS = {service: port + 2000 for service, port in PORTS.items()} | {"gateway": 9080}
BROWSER_ONLY = re.compile(r"\n\n# browser only: .*?# browser only: end\n", re.S)
TOOLS = pathlib.Path(sys.executable).parent


def pattern_of(service: str, text: str) -> str:
    """The Dockerfile with its own names taken out: the same for all."""
    port = PORTS[service]
    text = BROWSER_ONLY.sub("\n", text, count=1)
    text = text.replace(str(METRICS_PORTS[service]), "METRICS_PORT")
    text = re.sub(rf"\b{port + 1000}\b", "HEALTH_PORT", text.replace(str(port), "PORT"))
    # The gateway is HTTP: no gRPC health port.
    text = text.replace("EXPOSE PORT HEALTH_PORT", "EXPOSE PORT")
    text = text.replace("the gateway,", "the SERVICE service,")
    return text.replace(service, "SERVICE").replace(service.upper(), "SERVICE")


def check_dockerfiles() -> list[str]:
    problems = []
    files = {service: DOCKER / f"{service}.Dockerfile" for service in PORTS}
    missing = [str(path) for path in files.values() if not path.exists()]
    if missing:
        return [f"missing Dockerfiles: {missing}"]
    hadolint = subprocess.run(
        [TOOLS / "hadolint", *files.values()], capture_output=True, text=True, check=False
    )
    if hadolint.returncode != 0:
        problems.append(f"hadolint:\n{hadolint.stdout}{hadolint.stderr}")
    patterns = {service: pattern_of(service, path.read_text()) for service, path in files.items()}
    for service, pattern in patterns.items():
        if pattern != patterns["claims"]:
            problems.append(f"{service}.Dockerfile is not claims.Dockerfile with its own names")
    dev = tomllib.loads((REPOSITORY / "pyproject.toml").read_text())["dependency-groups"]["dev"]
    uv_pin = next(d for d in dev if d.startswith("uv=="))
    for path in files.values():
        if f"pip install --no-cache-dir {uv_pin}\n" not in path.read_text():
            problems.append(f"{path.name} does not install {uv_pin}, as pyproject.toml pins it")
    return problems


def check_schemas(folder: pathlib.Path, manifests: list[Manifest]) -> list[str]:
    problems = []
    for manifest in manifests:
        for version in KUBERNETES_VERSIONS:
            try:
                kubernetes_validate.validate(manifest, version, strict=True)
            except kubernetes_validate.ValidationError as error:
                name = f"{manifest['kind']} {manifest['metadata']['name']}"
                problems.append(f"{folder.name}: {name} (Kubernetes {version}): {error.message}")
    return problems


def check_checkov(folder: pathlib.Path, manifests: list[Manifest]) -> list[str]:
    with tempfile.TemporaryDirectory() as scratch:
        rendered = pathlib.Path(scratch) / f"{folder.name}.yaml"
        rendered.write_text(yaml.safe_dump_all(manifests, sort_keys=False))
        checkov = subprocess.run(
            [
                TOOLS / "checkov",
                *("--quiet", "--compact", "--framework", "kubernetes", "--skip-download"),
                *("--file", rendered),
            ],
            capture_output=True,
            text=True,
            check=False,
            env={"PATH": f"{TOOLS}:/usr/bin:/bin", "HOME": scratch, "LOG_LEVEL": "ERROR"},
        )
    if checkov.returncode != 0:
        return [f"checkov on {folder.name}:\n{checkov.stdout}{checkov.stderr}"]
    return []


def main() -> int:
    problems = check_dockerfiles()
    for folder in KUSTOMIZATIONS:
        manifests = render(folder)
        problems += check_schemas(folder, manifests)
        problems += check_checkov(folder, manifests)
    for problem in problems:
        print(problem, file=sys.stderr)
    if not problems:
        print(
            f"deploy: {len(PORTS)} Dockerfiles (hadolint, one pattern), "
            f"{len(KUSTOMIZATIONS)} kustomizations valid for Kubernetes "
            f"{', '.join(KUBERNETES_VERSIONS)} with no checkov finding"
        )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
