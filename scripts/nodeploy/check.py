"""`make lint`'s checks of deploy/: python -m scripts.nodeploy.check

- every Dockerfile is hadolint-clean and is the one pattern with its own
  names (claims.Dockerfile with the service's name and port; the browser's
  adds its Chromium block), pinning the uv that pyproject.toml pins;
- the base and every overlay, rendered, are valid against the Kubernetes
  schemas (kubernetes-validate, strict: an unknown field is an error) of the
  oldest and newest versions we support;
- checkov finds nothing in the rendered manifests; each check skipped is
  named, with its reason, in a `checkov.io/skip<n>` annotation where it is
  skipped (annotations survive rendering; comments would not);
- the alerts (deploy/prometheus/alerts.yaml) pass `promtool check rules` and
  their unit tests, name only metrics nod defines, and are word for word the
  PrometheusRule's groups; the PodMonitor scrapes a port every workload has.
"""

import pathlib
import re
import shutil
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
    REPOSITORY / "deploy" / "k8s" / "operator",
]
# The Prometheus Operator's kinds: not in the Kubernetes schemas, checked below.
MONITORING = REPOSITORY / "deploy" / "k8s" / "monitoring"
PROMETHEUS = REPOSITORY / "deploy" / "prometheus"
SOURCES = [REPOSITORY / "libs", REPOSITORY / "services", REPOSITORY / "gateway"]
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


def promtool(*args: str | pathlib.Path) -> list[str]:
    found = shutil.which("promtool")
    if found is None:
        return ["promtool is missing (Debian: apt-get install prometheus)"]
    done = subprocess.run([found, *args], capture_output=True, text=True, check=False)
    return (
        []
        if done.returncode == 0
        else [f"promtool {args[0]} {args[1]}:\n{done.stdout}{done.stderr}"]
    )


def defined_metrics() -> set[str]:
    """The names nod's code registers (prometheus_client adds _total,
    _bucket, _sum and _count to what it is given)."""
    pattern = re.compile(r"""(?:Counter|Histogram|Gauge|MetricFamily)\(\s*["'](nod_\w+)["']""")
    names: set[str] = set()
    for folder in SOURCES:
        for path in folder.rglob("*.py"):
            if "tests" not in path.parts and ".venv" not in path.parts:
                names.update(pattern.findall(path.read_text()))
    return names


def check_alerts(base: list[Manifest]) -> list[str]:
    alerts = PROMETHEUS / "alerts.yaml"
    problems = promtool("check", "rules", alerts)
    problems += promtool("test", "rules", PROMETHEUS / "alerts_test.yaml")
    groups = yaml.safe_load(alerts.read_text())["groups"]
    known = defined_metrics()
    for rule in (rule for group in groups for rule in group["rules"]):
        for name in set(re.findall(r"\bnod_\w+", rule["expr"])):
            if re.sub(r"_(total|bucket|sum|count)$", "", name) not in known:
                problems.append(f"alert {rule['alert']} reads {name}, which nod doesn't define")
    monitoring = render(MONITORING)
    rules = [m["spec"]["groups"] for m in monitoring if m["kind"] == "PrometheusRule"]
    if rules != [groups]:
        problems.append(f"{MONITORING.name}: the PrometheusRule's groups are not {alerts.name}'s")
    for monitor in (m for m in monitoring if m["kind"] == "PodMonitor"):
        problems += check_pod_monitor(monitor, base)
    return problems


def check_pod_monitor(monitor: Manifest, base: list[Manifest]) -> list[str]:
    """Every workload the PodMonitor selects has the ports it scrapes."""
    selector = monitor["spec"]["selector"]["matchLabels"].items()
    ports = {endpoint["port"] for endpoint in monitor["spec"]["podMetricsEndpoints"]}
    problems = []
    for workload in base:
        if workload["kind"] not in ("Deployment", "StatefulSet"):
            continue
        template = workload["spec"]["template"]
        if not selector <= template["metadata"]["labels"].items():
            continue
        containers = template["spec"]["containers"]
        named = {port.get("name") for c in containers for port in c.get("ports", [])}
        if missing := sorted(ports - named):
            name = workload["metadata"]["name"]
            problems.append(
                f"PodMonitor {monitor['metadata']['name']}: {name} has no port {missing}"
            )
    return problems


def main() -> int:
    problems = check_dockerfiles()
    for folder in KUSTOMIZATIONS:
        manifests = render(folder)
        problems += check_schemas(folder, manifests)
        problems += check_checkov(folder, manifests)
    problems += check_alerts(render(KUSTOMIZATIONS[0]))
    for problem in problems:
        print(problem, file=sys.stderr)
    if not problems:
        print(
            f"deploy: {len(PORTS)} Dockerfiles (hadolint, one pattern), "
            f"{len(KUSTOMIZATIONS)} kustomizations valid for Kubernetes "
            f"{', '.join(KUBERNETES_VERSIONS)} with no checkov finding; the alerts pass"
            " promtool and their unit tests"
        )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
