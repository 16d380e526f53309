"""A pod as the kubelet would start it from nod's manifests, on this machine:
the image's ENV, ENTRYPOINT and CMD (read from its Dockerfile; /opt/nod is
the service's venv built from its wheels), then the ConfigMap (envFrom) and
the container's own env, the container's args, Secret and emptyDir mounts
as folders under a scratch root, and every port rewritten to a free one on
loopback (a listener, a peer's Service address, a probe)."""

import json
import pathlib
import re
import shutil
import socket
from dataclasses import dataclass, field
from typing import Any

from scripts.nodeploy.manifests import Manifest, find

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


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Pod:
    """One pod of a Deployment or a Job, laid out under `root`."""

    manifest: Manifest
    root: pathlib.Path
    ports: dict[int, int] = field(default_factory=dict)  # containerPort -> loopback port

    @property
    def name(self) -> str:
        return f"{self.manifest['metadata']['name']}-0"

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
        self, manifests: list[Manifest], installed: Installed, services: dict[str, "Pod"]
    ) -> dict[str, str]:
        """The image's ENV, then envFrom, then env, as the kubelet orders them."""
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
            host, _, port = value.rpartition(":")
            if key.endswith("_LISTEN") and port.isdigit() and int(port) in self.ports:
                env[key] = f"127.0.0.1:{self.ports[int(port)]}"
            elif key.endswith("_ADDR") and (service := host.removeprefix("dns:///")) in services:
                # Every pod behind the Service: here, its one pod.
                env[key] = f"127.0.0.1:{service_port(manifests, services, service, int(port))}"
        return env

    def command(self, env: dict[str, str]) -> list[str]:
        """ENTRYPOINT (or the container's command) and CMD (or its args),
        the executable found on the image's PATH."""
        words = self.container.get("command") or self.image.entrypoint
        words = [*words, *(self.container.get("args") or self.image.cmd)]
        found = shutil.which(words[0], path=env["PATH"])
        assert found, f"{self.name}: {words[0]} is not on the image's PATH {env['PATH']}"
        return [found, *words[1:]]


def service_port(
    manifests: list[Manifest], pods: dict[str, Pod], service_name: str, port: int
) -> int:
    """Where `service_name:port` lands: the Service's targetPort on the pod
    its selector picks, as a loopback port."""
    service = find(manifests, "Service", service_name)
    (target,) = [p for p in service["spec"]["ports"] if p["port"] == port]
    pod = pods[service_name]
    labels = pod.manifest["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= labels.items(), service_name
    return pod.loopback(target.get("targetPort", port))
