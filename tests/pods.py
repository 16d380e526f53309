"""A pod as the kubelet would start it from nod's manifests, on this machine:
the image's ENV, ENTRYPOINT and CMD (read from its Dockerfile; /opt/nod is
the service's venv built from its wheels), then the ConfigMap (envFrom) and
the container's own env, the container's args, Secret and emptyDir mounts
as folders under a scratch root, and every port rewritten to a free one on
loopback (a listener, a peer's Service address or a StatefulSet pod's own
DNS name, a probe). A Deployment is one pod here; a StatefulSet is every pod
its replicas make, since each is called by its own name."""

import json
import pathlib
import re
import shutil
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

from nodtest.processes import free_port
from scripts.nodeploy.manifests import Manifest, find, ordinals

from .wheelhouse import REPOSITORY, Installed

IMAGE_ROOT = "/opt/nod"  # where each Dockerfile's build stage installs the venv
IMAGE_PATH = "/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin"  # python:*-slim's


@dataclass
class Image:
    """What a Dockerfile's final stage says about running it."""

    package: str  # the workspace package its build stage installs
    env: dict[str, str]
    entrypoint: list[str]
    cmd: list[str]


def read_image(reference: str) -> Image:
    """`nod-claims:0.1.0` -> deploy/docker/claims.Dockerfile, read."""
    name = reference.split(":")[0].split("/")[-1]
    text = (
        REPOSITORY / "deploy" / "docker" / f"{name.removeprefix('nod-')}.Dockerfile"
    ).read_text()
    lines = re.sub(r"\\\n", " ", text).splitlines()
    instructions = [line.strip().split(None, 1) for line in lines if line.strip()]
    instructions = [i for i in instructions if not i[0].startswith("#")]
    installs = [i[1] for i in instructions if i[0] == "RUN" and "install_service.py" in i[1]]
    package = installs[0].split("install_service.py", 1)[1].split()[0]
    last = max(n for n, i in enumerate(instructions) if i[0] == "FROM")
    env: dict[str, str] = {}
    entrypoint: list[str] = []
    cmd: list[str] = []
    for word, rest in instructions[last:]:
        if word == "ENV":
            for key, value in re.findall(r"(\w+)=(\S+)", rest):
                env[key] = value.replace("$PATH", IMAGE_PATH)
        elif word == "ENTRYPOINT":
            entrypoint = json.loads(rest)
        elif word == "CMD":
            cmd = json.loads(rest)
    env.setdefault("PATH", IMAGE_PATH)
    return Image(package, env, entrypoint, cmd)


@dataclass
class Pod:
    """One pod of a Deployment, a StatefulSet or a Job, laid out under `root`."""

    manifest: Manifest
    root: pathlib.Path
    ports: dict[int, int] = field(default_factory=dict)  # containerPort -> loopback port
    ordinal: int = 0  # a StatefulSet's: the pod's name ends with it

    @property
    def name(self) -> str:
        return f"{self.manifest['metadata']['name']}-{self.ordinal}"

    @property
    def labels(self) -> dict[str, str]:
        return self.manifest["spec"]["template"]["metadata"].get("labels", {})

    @property
    def spec(self) -> dict[str, Any]:
        return self.manifest["spec"]["template"]["spec"]

    @property
    def container(self) -> dict[str, Any]:
        (container,) = self.spec["containers"]
        return container

    @property
    def image(self) -> Image:
        return read_image(self.container["image"])

    def allocate_ports(self) -> None:
        for port in self.container.get("ports", []):
            self.ports[port["containerPort"]] = free_port()

    def port_number(self, port: int | str) -> int:
        """A probe's or Service's port, by number or by the container port's name."""
        if isinstance(port, int):
            return port
        for declared in self.container.get("ports", []):
            if declared.get("name") == port:
                return declared["containerPort"]
        raise AssertionError(f"{self.name}: no container port named {port}")

    def loopback(self, port: int | str) -> int:
        number = self.port_number(port)
        assert number in self.ports, f"{self.name}: port {number} is not a container port"
        return self.ports[number]

    def mounts(self) -> dict[str, dict[str, Any]]:
        """mountPath -> the volume mounted there."""
        volumes = {volume["name"]: volume for volume in self.spec.get("volumes", [])}
        return {
            mount["mountPath"]: volumes[mount["name"]]
            for mount in self.container.get("volumeMounts", [])
        }

    def lay_out(self, secrets: dict[str, dict[str, str]]) -> None:
        """Every mount as a folder under root; a Secret's keys as its files."""
        for path, volume in self.mounts().items():
            folder = self.at(path)
            folder.mkdir(parents=True, exist_ok=True)
            if "secret" in volume:
                name = volume["secret"]["secretName"]
                assert name in secrets, f"{self.name} mounts Secret {name}, which no doc lists"
                for key, value in secrets[name].items():
                    (folder / key).write_text(value + "\n")

    def at(self, path: str) -> pathlib.Path:
        return self.root / path.lstrip("/")

    def rewrite_path(self, value: str, installed: Installed) -> str:
        """A path inside the container, on this machine: the venv for
        /opt/nod, the scratch root for a mount."""
        if value == IMAGE_ROOT or value.startswith(IMAGE_ROOT + "/"):
            return str(installed.venv) + value[len(IMAGE_ROOT) :]
        for mount in self.mounts():
            if value == mount or value.startswith(mount.rstrip("/") + "/"):
                return str(self.at(value))
        return value

    def environment(
        self, manifests: list[Manifest], installed: Installed, pods: dict[str, "Pod"]
    ) -> dict[str, str]:
        """The image's ENV, then envFrom, then env, as the kubelet orders them.
        `pods`: every pod started here, by name, which addresses land on."""
        env = dict(self.image.env)
        for source in self.container.get("envFrom", []):
            config = find(manifests, "ConfigMap", source["configMapRef"]["name"])
            env.update(config.get("data", {}))
        for variable in self.container.get("env", []):
            if "value" in variable:
                env[variable["name"]] = variable["value"]
            else:
                field_path = variable["valueFrom"]["fieldRef"]["fieldPath"]
                assert field_path == "metadata.name", f"{self.name}: {field_path}"
                env[variable["name"]] = self.name
        for key, value in env.items():
            if key == "PATH":
                env[key] = ":".join(self.rewrite_path(part, installed) for part in value.split(":"))
                continue
            env[key] = self.rewrite_path(value, installed)
            _, _, port = value.rpartition(":")
            if key.endswith("_LISTEN") and port.isdigit() and int(port) in self.ports:
                env[key] = f"127.0.0.1:{self.ports[int(port)]}"
            elif key.endswith("_ADDR") and (landed := on_loopback(manifests, pods, value)):
                env[key] = landed
            elif key.endswith("_URL") and (landed := url_on_loopback(manifests, pods, value)):
                env[key] = landed
        return env

    def command(self, env: dict[str, str]) -> list[str]:
        """ENTRYPOINT (or the container's command) and CMD (or its args),
        the executable found on the image's PATH."""
        words = self.container.get("command") or self.image.entrypoint
        words = [*words, *(self.container.get("args") or self.image.cmd)]
        found = shutil.which(words[0], path=env["PATH"])
        assert found, f"{self.name}: {words[0]} is not on the image's PATH {env['PATH']}"
        return [found, *words[1:]]


def bare_pod(manifest: Manifest, root: pathlib.Path) -> Pod:
    """A manifest of kind Pod, as the pod a one-replica workload makes."""
    template = {"metadata": manifest["metadata"], "spec": manifest["spec"]}
    return Pod({**manifest, "spec": {"template": template}}, root / manifest["metadata"]["name"])


def pods_of(workload: Manifest, root: pathlib.Path) -> list[Pod]:
    """The pods a Deployment or a StatefulSet makes, here, each under
    root/<pod name>: a Deployment's one (the others are the same pod again);
    every one of a StatefulSet's, each being called by its own name."""
    if workload["kind"] == "StatefulSet":
        name = workload["metadata"]["name"]
        return [Pod(workload, root / f"{name}-{n}", ordinal=n) for n in ordinals(workload)]
    return [Pod(workload, root / f"{workload['metadata']['name']}-0")]


def services(manifests: list[Manifest]) -> dict[str, Manifest]:
    return {m["metadata"]["name"]: m for m in manifests if m["kind"] == "Service"}


def selected(service: Manifest, pods: dict[str, Pod]) -> list[Pod]:
    """The pods a Service's selector picks."""
    selector = service["spec"]["selector"].items()
    return [pod for pod in pods.values() if selector <= pod.labels.items()]


def url_on_loopback(manifests: list[Manifest], pods: dict[str, Pod], url: str) -> str | None:
    """An http(s) URL whose host:port is a Service here, on the loopback
    port it lands on; None for any other URL."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.port:
        return None
    landed = land(manifests, pods, parts.netloc)
    return parts._replace(netloc=landed).geturl() if landed else None


def on_loopback(manifests: list[Manifest], pods: dict[str, Pod], address: str) -> str | None:
    """An address setting (`host:port`, `dns:///host:port`, or a comma list
    of them) as the loopback ports it lands on here; None when it names no
    Service of these manifests. Every host of a list must land: a list half
    rewritten would send some calls off this machine."""
    parts = [part.strip() for part in address.split(",")]
    landed = [land(manifests, pods, part) for part in parts]
    if all(found is None for found in landed):
        return None
    unknown = [part for part, found in zip(parts, landed, strict=True) if found is None]
    assert not unknown, f"{address}: {unknown} names no Service or pod of these manifests"
    return ",".join(found for found in landed if found)


def land(manifests: list[Manifest], pods: dict[str, Pod], address: str) -> str | None:
    """One `host:port`: a Service's name (its targetPort on the pods its
    selector picks: here, one pod, or with dns:/// each of them), or a
    StatefulSet pod's own name, `<pod>.<governing Service>` (the pod's own
    port: the name resolves to the pod itself)."""
    spread = address.startswith("dns:///")
    host, _, port_text = address.removeprefix("dns:///").rpartition(":")
    if not port_text.isdigit():
        return None
    port = int(port_text)
    known = services(manifests)
    if host in known:
        service = known[host]
        (target,) = [p for p in service["spec"]["ports"] if p["port"] == port]
        behind = selected(service, pods)
        assert behind, f"{address}: Service {host} picks no pod"
        if not spread:
            # A virtual IP picks one pod per connection; here, the one pod.
            assert len(behind) == 1, f"{address}: {len(behind)} pods behind {host}, no dns:///"
        found = [pod.loopback(target.get("targetPort", port)) for pod in behind]
        return ",".join(f"127.0.0.1:{loopback}" for loopback in found)
    pod_name, _, subdomain = host.partition(".")
    if subdomain not in known:
        return None
    service = known[subdomain]
    assert not spread, f"{address}: one pod's name, given as dns:/// (spread over one pod)"
    # Only a headless Service that governs a StatefulSet gives its pods names.
    assert service["spec"].get("clusterIP") == "None", f"{address}: {subdomain} isn't headless"
    governed = [
        m for m in manifests if m["kind"] == "StatefulSet" and m["spec"]["serviceName"] == subdomain
    ]
    assert governed, f"{address}: Service {subdomain} governs no StatefulSet"
    pod = pods.get(pod_name)
    made = [f"{s['metadata']['name']}-{n}" for s in governed for n in ordinals(s)]
    assert pod is not None and pod_name in made, (
        f"{address}: {pod_name} is not a pod of {[s['metadata']['name'] for s in governed]},"
        f" which make {made}"
    )
    picked = any(chosen is pod for chosen in selected(service, pods))
    assert picked, f"{address}: Service {subdomain} doesn't pick {pod_name}"
    return f"127.0.0.1:{pod.loopback(port)}"
