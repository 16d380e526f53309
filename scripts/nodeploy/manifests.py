"""A kustomization rendered the way kustomize renders it, for the few
features nod's use: resources (files and folders), namespace, images and
strategic-merge patches by file. kubectl isn't on the machines that run
`make lint` and the tests, and a kustomize binary isn't in any registry they
reach; anything else in a kustomization is refused rather than ignored, so
this never renders something kustomize wouldn't."""

import copy
import pathlib
from typing import Any

import yaml

Manifest = dict[str, Any]
KNOWN_KEYS = {"apiVersion", "kind", "resources", "namespace", "images", "patches"}
# Lists kustomize merges item by item, by this key, in a strategic-merge patch.
MERGE_KEYS = {
    "containers": "name",
    "initContainers": "name",
    "volumes": "name",
    "env": "name",
    "volumeMounts": "mountPath",
    "ports": "containerPort",
}


def load_yaml(path: pathlib.Path) -> list[Manifest]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc]


def render(folder: pathlib.Path) -> list[Manifest]:
    """Every resource the kustomization in `folder` makes, in order."""
    kustomization = yaml.safe_load((folder / "kustomization.yaml").read_text())
    unknown = set(kustomization) - KNOWN_KEYS
    if unknown:
        raise ValueError(f"{folder}/kustomization.yaml: {sorted(unknown)} not rendered here")
    manifests: list[Manifest] = []
    for resource in kustomization.get("resources", []):
        path = folder / resource
        manifests += render(path) if path.is_dir() else load_yaml(path)
    for patch in kustomization.get("patches", []):
        if set(patch) != {"path"}:
            raise ValueError(f"{folder}: only patches by path are rendered here: {patch}")
        for change in load_yaml(folder / patch["path"]):
            apply_patch(manifests, change)
    if namespace := kustomization.get("namespace"):
        for manifest in manifests:
            if manifest["kind"] != "Namespace":
                manifest["metadata"]["namespace"] = namespace
    for image in kustomization.get("images", []):
        set_image(manifests, image)
    return manifests


def apply_patch(manifests: list[Manifest], change: Manifest) -> None:
    """A patch names its target by kind, name and namespace (kustomize
    matches a patch without a namespace only where the base had none)."""
    name = change["metadata"]["name"]
    namespace = change["metadata"].get("namespace")
    for manifest in manifests:
        if (
            manifest["kind"] == change["kind"]
            and manifest["metadata"]["name"] == name
            and manifest["metadata"].get("namespace") == namespace
        ):
            merged = merge(manifest, change)
            manifest.clear()
            manifest.update(merged)
            return
    raise ValueError(f"a patch names {change['kind']} {name}, which no resource is")


def merge(base: Any, change: Any, key: str | None = None) -> Any:
    if isinstance(base, dict) and isinstance(change, dict):
        merged = copy.deepcopy(base)
        for name, value in change.items():
            merged[name] = merge(base[name], value, name) if name in base else value
        return merged
    if isinstance(base, list) and isinstance(change, list) and key in MERGE_KEYS:
        by = MERGE_KEYS[key]
        merged_list = copy.deepcopy(base)
        for item in change:
            match = next((i for i, old in enumerate(base) if old.get(by) == item.get(by)), None)
            if match is None:
                merged_list.append(item)
            else:
                merged_list[match] = merge(base[match], item)
        return merged_list
    return copy.deepcopy(change)


def set_image(manifests: list[Manifest], image: dict[str, str]) -> None:
    for container in containers(manifests):
        name, _, _ = container["image"].partition(":")
        if name == image["name"]:
            new = image.get("newName", name)
            if digest := image.get("digest"):
                container["image"] = f"{new}@{digest}"
            else:
                container["image"] = f"{new}:{image.get('newTag', 'latest')}"


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
