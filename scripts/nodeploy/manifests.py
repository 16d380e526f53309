"""A kustomization as `kubectl kustomize` renders it (the kustomize built
into kubectl, the one an operator's `kubectl apply -k` uses), and what
`make lint`'s checks and the tests read of the result."""

import pathlib
import shutil
import subprocess
from typing import Any

import yaml

Manifest = dict[str, Any]


def render(folder: pathlib.Path) -> list[Manifest]:
    """Every resource the kustomization in `folder` makes."""
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        raise RuntimeError("kubectl is needed to render deploy/k8s (kubectl kustomize)")
    rendered = subprocess.run(
        [kubectl, "kustomize", str(folder)], capture_output=True, text=True, check=False
    )
    if rendered.returncode != 0:
        raise ValueError(f"kubectl kustomize {folder}: {rendered.stderr.strip()}")
    return [doc for doc in yaml.safe_load_all(rendered.stdout) if doc]


def pod_spec(manifest: Manifest) -> dict[str, Any] | None:
    if manifest["kind"] in {"Deployment", "Job", "StatefulSet", "DaemonSet"}:
        return manifest["spec"]["template"]["spec"]
    return None


def containers(manifests: list[Manifest]) -> list[dict[str, Any]]:
    return [c for m in manifests if (spec := pod_spec(m)) for c in spec["containers"]]


def ordinals(statefulset: Manifest) -> range:
    """A StatefulSet's pods' ordinals: pod `<name>-<ordinal>`, from
    spec.ordinals.start (0 unless set), one per replica (1 unless set)."""
    spec = statefulset["spec"]
    start = spec.get("ordinals", {}).get("start", 0)
    return range(start, start + spec.get("replicas", 1))


def find(manifests: list[Manifest], kind: str, name: str) -> Manifest:
    for manifest in manifests:
        if manifest["kind"] == kind and manifest["metadata"]["name"] == name:
            return manifest
    raise KeyError(f"no {kind} {name}")
